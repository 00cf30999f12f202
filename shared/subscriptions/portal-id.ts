/**
 * What a portal id looks like. Portal ids become DynamoDB partition keys and SNS tag values;
 * SNS tags allow only these characters, and no '#' keeps a portal's partition apart from the
 * idempotency records' partitions (table.ts). The API takes the id from a token's claim, the
 * dispatcher from an event's detail, the local token endpoint from its clients file: all check
 * it here.
 */
export const PORTAL_ID_PATTERN = /^[A-Za-z0-9_.:/=+@-]{1,128}$/;
