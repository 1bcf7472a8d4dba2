/**
 * The budget of the invocation a piece of work runs for (issue #39 item 10): the Lambda shell starts each event
 * with an AbortSignal that fires at its deadline (what the Lambda has left minus what the function keeps for
 * answering), and every store call made on its behalf, however deep, is given that signal. A dependency that
 * accepts and never answers then ends each call at the request's deadline, as the documented 504 "did not answer
 * in time", instead of its attempts running past the Lambda's own end (a bare 500 from the runtime's timeout).
 *
 * Carried by AsyncLocalStorage rather than a parameter of every store method: the store is shared by every
 * request of a warm process, and the deadline belongs to the request, not to the store or its callers' code.
 * Outside an invocation (the CLI, tests) there is none and each call keeps only its client's own timeouts.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const budget = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` with `signal` as the budget of every dependency call it makes (none: the calls' own timeouts). */
export function withRequestBudget<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  return signal ? budget.run(signal, work) : work();
}

/** The signal of the invocation this code runs for, or undefined outside one. */
export function requestBudget(): AbortSignal | undefined {
  return budget.getStore();
}
