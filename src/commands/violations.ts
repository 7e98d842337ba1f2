/**
 * A business rule a vacation request breaks, with the figures involved. The commands decide in
 * these terms; the interface words each one in Spanish (src/app/rule-messages.ts). Day
 * balances are rounded to two decimals, as callers read them.
 */
export type RuleViolation =
  /** No contract governs the start date. */
  | { rule: 'noContract' }
  | { rule: 'noCompanyContract' }
  | { rule: 'noVacationParams' }
  | { rule: 'noRiskLevel' }
  | { rule: 'notBusinessDay'; startDate: string }
  /** (a) More days than available, without asking for them in advance. */
  | { rule: 'notEnoughDays'; requested: number; available: number }
  /** (b) An enjoyed vacation shorter than the company contract's minimum. */
  | { rule: 'belowMinimum'; requested: number; minimum: number }
  /** (c) Days in advance that the company contract does not allow, or more than its maximum. */
  | { rule: 'advanceNotAllowed'; requested: number; available: number }
  | { rule: 'advanceOverMaximum'; inAdvance: number; maximum: number }
  /** (d) The subgerencia already has its maximum of people away on that day. */
  | { rule: 'unitFull'; maximum: number; subgerenciaId: string; day: string }
  /** Money paid for more than half of an accrual period's days while the contract is in force. */
  /** (g): the days in money, this request's included, over half of the days accrued by the start. */
  | { rule: 'compensationOverHalf'; compensated: number; accrued: number }
  /** (f): the vacation ends after the governing contract does. */
  | { rule: 'endsAfterContract'; endDate: string; contractEnd: string }
  /** (e) The period shares a day with another live enjoyed vacation of the worker. */
  | { rule: 'overlap'; codigoPila: string; startDate: string; endDate: string }
  /** Interruption (CST art. 188): only an approved, enjoyed vacation in course, on a business day inside it. */
  | { rule: 'notApprovedToInterrupt'; codigoPila: string }
  | { rule: 'compensatedToInterrupt'; codigoPila: string }
  | { rule: 'alreadyInterrupted'; codigoPila: string; on: string }
  | { rule: 'notBegun'; codigoPila: string; startDate: string; today: string }
  | { rule: 'alreadyEnded'; codigoPila: string; endDate: string; today: string }
  | { rule: 'interruptionOutside'; date: string; startDate: string; endDate: string }
  | { rule: 'interruptionNotBusinessDay'; date: string }
  /** A record continuing an interrupted one books at most the days it gave back that are left. */
  | { rule: 'continuesUnknown'; codigoPila: string }
  | { rule: 'continuesNotInterrupted'; codigoPila: string }
  | { rule: 'continuesOverReturned'; requested: number; left: number; codigoPila: string };
