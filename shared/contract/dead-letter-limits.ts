/** The numbers of the dead-letter operations' contract, apart from schemas.ts so that handlers read them without the schemas. */
export const MAX_REPLAY_EVENT_IDS = 100;
export const MAX_DEAD_LETTERS_PAGE = 100;
export const DEFAULT_DEAD_LETTERS_PAGE = 50;
export const MAX_ATTEMPTS_PAGE = 100;
export const DEFAULT_ATTEMPTS_PAGE = 50;
export const MAX_MESSAGES_PAGE = 100;
export const DEFAULT_MESSAGES_PAGE = 50;
/** Recoveries per page of GET /recoveries. */
export const MAX_RECOVERIES_PAGE = 100;
export const DEFAULT_RECOVERIES_PAGE = 20;
