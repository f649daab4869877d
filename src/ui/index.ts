// `plannav ui`, the run page: not a public entry point. The command (src/cli/) and the tests
// import it from here.

export { uiCommand, uiUsage, type CommandIo } from './command';
export { startRunPage, runPagePolicy, type RunPage, type RunPageOptions } from './server';
