/**
 * When a semantic model's refresh schedule expects a run. Power BI answers the schedule in local
 * times of a Windows time-zone id (`localTimeZoneId`); we map the common ids to IANA zones and let
 * `Intl` apply the zone's offset (daylight saving included) on each slot's own date. An id we do
 * not know is read as UTC and said so, rather than guessed.
 */
import { zoneOffsetMs as offsetMs } from '../../zone-offset.js';

/** Windows time-zone id → IANA zone (CLDR's "001" territory mapping, for the zones customers use). */
const WINDOWS_TO_IANA: Record<string, string> = {
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Romance Standard Time': 'Europe/Paris',
  'Central European Standard Time': 'Europe/Warsaw',
  'GTB Standard Time': 'Europe/Bucharest',
  'FLE Standard Time': 'Europe/Kiev',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'Russian Standard Time': 'Europe/Moscow',
  'Turkey Standard Time': 'Europe/Istanbul',
  'Israel Standard Time': 'Asia/Jerusalem',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'Arabian Standard Time': 'Asia/Dubai',
  'India Standard Time': 'Asia/Kolkata',
  'China Standard Time': 'Asia/Shanghai',
  'Singapore Standard Time': 'Asia/Singapore',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Korea Standard Time': 'Asia/Seoul',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'SA Eastern Standard Time': 'America/Cayenne',
  'Argentina Standard Time': 'America/Buenos_Aires',
  'Pacific SA Standard Time': 'America/Santiago',
  'SA Pacific Standard Time': 'America/Bogota',
  'SA Western Standard Time': 'America/La_Paz',
  'Venezuela Standard Time': 'America/Caracas',
  'Central America Standard Time': 'America/Guatemala',
  'Central Standard Time (Mexico)': 'America/Mexico_City',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'US Mountain Standard Time': 'America/Phoenix',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Alaskan Standard Time': 'America/Anchorage',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Atlantic Standard Time': 'America/Halifax',
  'Newfoundland Standard Time': 'America/St_Johns',
  'Azores Standard Time': 'Atlantic/Azores',
  'Cape Verde Standard Time': 'Atlantic/Cape_Verde',
};

export interface RefreshSchedule {
  days: string[];
  times: string[];
  enabled: boolean;
  localTimeZoneId: string;
}

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_MS = 86_400_000;
/** How far back a slot is looked for: a weekly schedule's last slot is at most 7 days old. */
const LOOKBACK_DAYS = 8;

/** The IANA zone of a Windows id (an IANA id is accepted as it is), or null when unknown. */
export function ianaZoneOf(windowsId: string): string | null {
  const mapped = WINDOWS_TO_IANA[windowsId];
  if (mapped) return mapped;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: windowsId });
    return windowsId;
  } catch {
    return null;
  }
}

/** The UTC instant of a local wall-clock time (given as if it were UTC) in `zone`. */
function wallToUtc(zone: string, wall: number): number {
  return wall - offsetMs(zone, wall - offsetMs(zone, wall));
}

function parseTime(t: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(t.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 3_600_000 + min * 60_000 : null;
}

/** The newest slot of an enabled schedule at or before `now` (within the last 8 days), or null. */
export function lastSlotAtOrBefore(s: RefreshSchedule, now: Date): Date | null {
  if (!s.enabled || s.days.length === 0 || s.times.length === 0) return null;
  const zone = ianaZoneOf(s.localTimeZoneId) ?? 'UTC';
  const times = s.times.map(parseTime).filter((t): t is number => t !== null);
  const days = new Set(s.days);
  const today = Math.floor((now.getTime() + offsetMs(zone, now.getTime())) / DAY_MS);
  let best: number | null = null;
  for (let day = today; day >= today - LOOKBACK_DAYS; day--) {
    if (!days.has(DAY_NAMES[new Date(day * DAY_MS).getUTCDay()]!)) continue;
    for (const t of times) {
      const at = wallToUtc(zone, day * DAY_MS + t);
      if (at <= now.getTime() && (best === null || at > best)) best = at;
    }
    // Days are visited newest first; a slot found on a day beats any of an older day.
    if (best !== null && day < today) break;
  }
  return best === null ? null : new Date(best);
}
