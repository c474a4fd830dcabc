// What must wait until a request's answer has left the process: a resources/read holds its share
// of the read budget until then, as the answer's JSON and its buffer hold the bytes several times
// over after the handler has returned. The HTTP layer says when the answer is gone.
import { AsyncLocalStorage } from 'node:async_hooks';

type Registrar = (done: () => void) => void;

const requestEnds = new AsyncLocalStorage<Registrar>();

/** Serves a request whose answer's end `register` reports (every registered `done` runs once then). */
export function withRequestEnd<T>(register: Registrar, run: () => T): T {
  return requestEnds.run(register, run);
}

/** Runs `done` once the current request's answer is gone; at once outside a request. */
export function afterAnswer(done: () => void): void {
  const register = requestEnds.getStore();
  if (register) register(done);
  else done();
}
