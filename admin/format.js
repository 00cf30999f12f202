// How the page writes counts, times and subscription ids: the same for every reader.
import { element } from './dom.js';

export const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

/** A time as `2026-11-24 09:01 UTC`: the same for every reader, whatever their time zone. */
function utcTime(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A time the page shows, kept on one line, with its machine-readable value. */
export function timeElement(value) {
  const date = new Date(value);
  return element('time', { dateTime: Number.isNaN(date.getTime()) ? '' : date.toISOString(), textContent: utcTime(value) });
}

/** An endpoint as text with a line-break opportunity after each separator, so it wraps between its parts, not inside one. */
export function withBreaks(text) {
  return text.split(/(?<=[/.@?&=:_-])/).flatMap((part, index) => (index === 0 ? [part] : [document.createElement('wbr'), part]));
}

/** A configId is a UUIDv7: its first 48 bits are its creation time in milliseconds (RFC 9562, 5.7). */
export function createdAtOf(configId) {
  return Number.parseInt(configId.replaceAll('-', '').slice(0, 12), 16);
}

/**
 * Enough of a configId to tell two subscriptions apart: its last 8 characters, which are random.
 * (Its first 8 are the top of the creation time, the same for every id made within about a minute.)
 */
export const shortIdOf = (configId) => `…${configId.slice(-8)}`;

/** How buttons and headings name a subscription: names need not be unique, ids are. */
export const labelOf = (subscription) => `${subscription.name} (${shortIdOf(subscription.configId)})`;
