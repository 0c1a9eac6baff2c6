// Every machine drawn in visualizations/: the built-in flows, and the example custom flows, drawn like them from
// their own definitions (examples/custom-flow/machine.ts, examples/device-approval/machine.ts).
import type { AnyStateMachine } from 'xstate';
import { machines } from '../src/devtools/machines.js';
import { emailCodeMachine } from '../examples/custom-flow/machine.js';
import { deviceMachine } from '../examples/device-approval/machine.js';

export const drawnMachines: Record<string, AnyStateMachine> = { ...machines, 'email-code': emailCodeMachine, 'device-approval': deviceMachine };
