import { readFileSync } from 'node:fs';
import { HolidayCalendar, parseHolidayOverride } from '../domain/index.ts';
import { ConfigError, type Config } from './config.ts';

/** The holiday calendar, with the operator's corrections from HOLIDAYS_FILE when one is named. */
export function holidayCalendar(config: Pick<Config, 'holidaysFile'>): HolidayCalendar {
  if (!config.holidaysFile) return new HolidayCalendar();
  let text: string;
  try {
    text = readFileSync(config.holidaysFile, 'utf8');
  } catch (err) {
    throw new ConfigError(`HOLIDAYS_FILE=${JSON.stringify(config.holidaysFile)} cannot be read: ${(err as Error).message}`);
  }
  try {
    return new HolidayCalendar(parseHolidayOverride(text));
  } catch (err) {
    throw new ConfigError(`HOLIDAYS_FILE=${JSON.stringify(config.holidaysFile)} is not valid: ${(err as Error).message}`);
  }
}
