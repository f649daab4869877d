// The public face of `plannav/testing`: a scripted model and an in-memory browser, for tests of
// plannav itself and of users' own apps. Nothing here is needed at run time.

export { ScriptedLLM, scriptedActions, scriptedPlan } from './scripted-llm';
export type { ScriptedFailure, ScriptedLLMOptions, ScriptedPlan, ScriptedRequest, ScriptedResponse } from './scripted-llm';
export { FakeBrowserDriver } from './fake-browser-driver';
export type { FakeBrowserDriverOptions, FakeDriverCall, FakeElement, FakePage } from './fake-browser-driver';
export { ConformanceError, registerConformance } from './conformance';
export type { ConformanceCase, ConformanceErrorOptions, ConformanceTestFunction } from './conformance';
export { modelClientConformance } from './model-conformance';
export type { ModelClientConformanceOptions, ModelClientSettings } from './model-conformance';
export type { ModelWireFormat } from './model-conformance-wire';
export { driverConformance } from './driver-conformance';
export type { DriverConformanceOptions } from './driver-conformance';
export { recordModelCalls, replayModelCalls } from './cassette';
export type { RecordModelCallsOptions, ReplayModelCallsOptions } from './cassette';
export { CassetteError, CassetteMismatchError } from '../errors';
export type { CassetteErrorOptions, CassetteMismatchErrorOptions } from '../errors';
