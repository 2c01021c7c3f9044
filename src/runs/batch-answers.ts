/**
 * How a ledger twin answers a batch call (`claimMany`, `finishMany`) item by item: each item is checked
 * alone (a bad one is refused alone, as its single call would be), the checked ones go to the store in one
 * call, and each gets back its own answer — `true`/`false`, or an error naming its own net and slot.
 *
 * What it is not: the gathering of calls into a batch (ledger-batch.ts does that), nor a retry: a call the
 * store did not answer rejects every item sent in it.
 */
import type { RunBatchAnswer } from './run-ledger.js'
import { RunLedgerError, type RunLedgerErrorContext } from './run-ledger-error.js'

/** One item as checked: what is sent for it, and what its single call's error would name. */
export interface CheckedItem<T> {
  value: T
  context: RunLedgerErrorContext
}

/** A sent item's answer from the store: its boolean, or why the store refused that item alone. */
export type SentAnswer = boolean | { refused: string }

/**
 * The answers of `items` in their order: each refused by `check` rejected with its error, the others sent
 * together through `send` (which answers them in the order given, one each).
 */
export async function answerEach<I, T>(
  items: readonly I[],
  check: (item: I) => CheckedItem<T>,
  send: (values: T[]) => Promise<SentAnswer[]>,
): Promise<RunBatchAnswer[]> {
  const answers: RunBatchAnswer[] = []
  const sent: { index: number; item: CheckedItem<T> }[] = []
  for (const [index, item] of items.entries()) {
    try {
      sent.push({ index, item: check(item) })
      answers.push({ status: 'fulfilled', value: false })
    } catch (error) {
      answers.push({ status: 'rejected', reason: error })
    }
  }
  if (sent.length === 0) return answers
  try {
    const back = await send(sent.map((s) => s.item.value))
    for (const [i, { index, item }] of sent.entries()) answers[index] = answerOf(back[i], item.context)
  } catch (error) {
    for (const { index, item } of sent)
      answers[index] = { status: 'rejected', reason: itemError(error, item) }
  }
  return answers
}

function answerOf(answer: SentAnswer | undefined, context: RunLedgerErrorContext): RunBatchAnswer {
  if (typeof answer === 'boolean') return { status: 'fulfilled', value: answer }
  const detail = `the store refused the write: ${answer?.refused ?? 'no answer for this item'}`
  return { status: 'rejected', reason: new RunLedgerError('RUN_LEDGER_FAILED', context, detail) }
}

/** The batch call's failure as one item's: its code, naming the item's own net and slot. */
function itemError(error: unknown, item: CheckedItem<unknown>): RunLedgerError {
  const code = error instanceof RunLedgerError ? error.code : 'RUN_LEDGER_FAILED'
  const why = error instanceof Error ? error.message : String(error)
  return new RunLedgerError(code, item.context, `the batch it was sent in failed: ${why}`, { cause: error })
}
