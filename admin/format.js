// How the page writes counts, times and subscription ids: the same for every reader.
import { element } from './dom.js';

export const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

/** A time as `2026-11-24 09:01 UTC`: the same for every reader, whatever their time zone. */
function utcTime(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A time the page shows, with its machine-readable value: its date and its clock each kept whole,
 * so a narrow column breaks it between them and nowhere else.
 */
export function timeElement(value) {
  const date = new Date(value);
  const text = utcTime(value);
  const space = text.indexOf(' ');
  const parts = Number.isNaN(date.getTime()) || space === -1
    ? [text]
    : [element('span', { className: 'date', textContent: text.slice(0, space) }), ' ', element('span', { className: 'clock', textContent: text.slice(space + 1) })];
  return element('time', { dateTime: Number.isNaN(date.getTime()) ? '' : date.toISOString() }, parts);
}

/** A message of the service with each ISO 8601 time in it written as the page writes times. */
export function withReadableTimes(text) {
  return String(text).replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z\b/g, (iso) => utcTime(iso));
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
