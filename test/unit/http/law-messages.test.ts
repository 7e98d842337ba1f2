import { describe, expect, it } from 'vitest';
import { warningBody } from '../../../src/app/law-messages.ts';

describe('the words of the vacation-law warnings', () => {
  it('given technical or trusted staff over their limit, then the accumulation names the four periods they may hold', () => {
    expect(warningBody({ kind: 'accumulation', owed: 5, limit: 4, extended: true })).toEqual({
      tipo: 'acumulacion',
      mensaje:
        'El trabajador tiene 5 períodos causados con días pendientes; el artículo 190 del CST permite acumular hasta 4 para personal técnico, especializado, de confianza o de manejo',
    });
  });

  it('given pending days with a fraction, then they are shown with two decimals', () => {
    expect(warningBody({ kind: 'aboutToPrescribe', period: { contractId: 7, number: 2 }, pendingUnits: 3_735, on: '2027-01-31' })).toEqual({
      tipo: 'prescripcion',
      mensaje: 'Los 10.38 días pendientes del período 2 del contrato 7 prescriben el 2027-01-31 (artículo 488 del CST)',
    });
  });
});
