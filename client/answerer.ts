// Who answers a task's input requests: a person at a terminal, or a script.
import type { InputRequest, InputResponse } from '../workflows/mcp-contract.ts';

export type Answerer = (key: string, request: InputRequest) => Promise<InputResponse>;
