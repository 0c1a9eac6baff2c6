// The registry of built-in flow machines, by machine id: what the visualizer draws and the tests cover.
import type { AnyStateMachine } from 'xstate';

export const machines: Record<string, AnyStateMachine> = {};
