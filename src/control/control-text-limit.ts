/**
 * How much of an operator's text a control document keeps: its own file so that the checks, the store
 * contract and the document reader share it without importing each other.
 */

/**
 * The most characters of a reason or an author kept, as written and as read (net-control-document.ts):
 * status views serve them on every refresh, and each paused tick logs and records the reason.
 */
export const MAX_TEXT_CHARS = 500
