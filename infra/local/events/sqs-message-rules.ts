/**
 * What SQS takes in a message besides its size, as the SQS stand-in (sqs-stand-in.ts) checks it:
 * the characters of a body, of a String attribute's value and of a custom type's label, and message
 * attributes (names, types, values, at most 10). Where no recording of AWS's answer exists, the rule
 * is the documentation's and the wording the stand-in's own; each rule says which.
 */
import type { QueueMessageAttribute } from './event-queue';

/**
 * The characters a message body may hold, XML 1.0's; SQS refuses a body with any other
 * (InvalidMessageContents) and names the first (SQS API Reference, "SendMessage",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html;
 * the message as SQS words it, seen in SDK users' reports).
 */
export const ALLOWED_CHARACTERS = '#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]';
const NOT_ALLOWED = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** The first character of `text` SQS does not take, as `#xN`; a lone surrogate counts as one. */
export function invalidCharacterOf(text: string): string | undefined {
  const found = NOT_ALLOWED.exec(text);
  return found ? `#x${found[0].codePointAt(0)!.toString(16).toUpperCase()}` : undefined;
}

/** SQS takes at most 10 message attributes a message ("Amazon SQS message attributes"). */
const MAX_ATTRIBUTES = 10;
/** A name, and a type, of up to 256 characters. */
const MAX_NAME_LENGTH = 256;

/**
 * A Number attribute's value SQS refuses though it reads as a number: SQS takes "up to 38 digits of
 * precision, and ... between 10^-128 and 10^+126", leading and trailing zeroes trimmed (SQS
 * Developer Guide, "Message attribute data types",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-message-metadata.html#message-attribute-data-types).
 * Read as the page writes it, a bound on the magnitude of a number other than zero, either sign:
 * the stricter of the two readings (-10^128 to 10^126 is the other), so the stand-in refuses
 * everything either refuses. No recording shows AWS's answer; the reason worded here is the
 * stand-in's. `text` already matches `-?digits(.digits)?`.
 */
export function numberBeyondSqs(text: string): string | undefined {
  const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
  const digits = `${whole}${fraction}`.replace(/0+$/, '');
  const first = digits.search(/[1-9]/);
  if (first === -1) return undefined;
  const significant = digits.slice(first);
  if (significant.length > 38) return `it has ${significant.length} significant digits, more than 38`;
  // The power of ten of the first significant digit: 10^126 itself is taken, nothing above it.
  const exponent = whole.length - 1 - first;
  if (exponent > 126 || (exponent === 126 && significant !== '1')) return 'its magnitude is over 10^+126';
  if (exponent < -128) return 'its magnitude is under 10^-128';
  return undefined;
}

/**
 * Message attributes as the JSON protocol carries them (`{DataType, StringValue | BinaryValue}`,
 * binary in base64), checked as SQS checks them (SQS Developer Guide, "Amazon SQS message
 * attributes", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-message-metadata.html):
 * - at most 10 ("Number of message attributes [11] exceeds the allowed maximum [10]." as AWS words it);
 * - a name of up to 256 letters, digits, `_`, `-` and `.`, not starting with `AWS.` or `Amazon.`
 *   (any case), with no period at either end nor two in a row;
 * - a type String, Number or Binary, or one of them with a custom label after a period, up to 256
 *   characters, the label holding only a body's characters ("The custom-type label has the same
 *   restrictions as the message body"); AWS's refusal names the prefixes, as a boto3 user quoted it;
 * - a value of that type, not empty (recorded); a String value holding only a body's characters
 *   ("For String data types, the attribute values has the same restrictions as the message
 *   body"); a Number one a number ("Can't cast ... to a number.", as AWS words it) within SQS's
 *   precision and range (numberBeyondSqs).
 * Every refusal is InvalidParameterValue, as AWS's recorded and reported attribute refusals are (and
 * as LocalStack, validated against AWS, answers a String value's character: "AWS throws a
 * different exception here" than InvalidMessageContents). Names, types and values count towards
 * the message's size.
 */
export function attributesOf(input: unknown): { values: Record<string, QueueMessageAttribute>; count: number; bytes: number } | { invalid: string } {
  const values: Record<string, QueueMessageAttribute> = {};
  if (input === undefined || input === null) return { values, count: 0, bytes: 0 };
  if (typeof input !== 'object' || Array.isArray(input)) return { invalid: 'MessageAttributes must be a map.' };
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_ATTRIBUTES) return { invalid: `Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].` };
  let bytes = 0;
  for (const [name, raw] of entries) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.length > MAX_NAME_LENGTH || /^(aws\.|amazon\.)/i.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..')) {
      return { invalid: `Message attribute name '${name}' is invalid.` };
    }
    const { DataType: dataType, StringValue: stringValue, BinaryValue: binaryValue } = (raw ?? {}) as Record<string, unknown>;
    if (typeof dataType !== 'string' || !/^(String|Number|Binary)(\..+)?$/su.test(dataType) || dataType.length > MAX_NAME_LENGTH || invalidCharacterOf(dataType) !== undefined) {
      return { invalid: `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.` };
    }
    if (dataType.startsWith('Binary')) {
      if (typeof binaryValue !== 'string' || binaryValue === '') return { invalid: `Message (user) attribute '${name}' must contain a non-empty value of type '${dataType}'.` };
      values[name] = { dataType, binaryValue };
      bytes += Buffer.from(binaryValue, 'base64').length;
    } else {
      if (typeof stringValue !== 'string' || stringValue === '') return { invalid: `Message (user) attribute '${name}' must contain a non-empty value of type '${dataType}'.` };
      const invalid = invalidCharacterOf(stringValue);
      if (invalid !== undefined) return { invalid: `Invalid binary character '${invalid}' was found in the value of message (user) attribute '${name}', the set of allowed characters is ${ALLOWED_CHARACTERS}.` };
      if (dataType.startsWith('Number')) {
        if (!/^-?\d+(\.\d+)?$/.test(stringValue)) return { invalid: `Can't cast the value of message (user) attribute '${name}' to a number.` };
        const beyond = numberBeyondSqs(stringValue);
        if (beyond !== undefined) return { invalid: `The value of message (user) attribute '${name}' is not a number SQS takes: ${beyond}.` };
      }
      values[name] = { dataType, stringValue };
      bytes += Buffer.byteLength(stringValue, 'utf8');
    }
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(dataType, 'utf8');
  }
  return { values, count: entries.length, bytes };
}
