// Every machine drawn in visualizations/: the built-in flows, and the example custom flow, drawn like them from
// its own definition (examples/custom-flow/machine.ts).
import type { AnyStateMachine } from 'xstate';
import { machines } from '../src/devtools/machines.js';
import { emailCodeMachine } from '../examples/custom-flow/machine.js';

export const drawnMachines: Record<string, AnyStateMachine> = { ...machines, 'email-code': emailCodeMachine };
