// The session layer: what every entry point (executor, replay, standalone, collect, bullmq) uses
// of the browser and the agents, wired once. Internal: nothing here is part of the public API.

export { BrowserSession, type BrowserSessionOptions } from './browser-session';
export { createAgentContext, defaultAgentSettings, defaultMaxInputTokens, unanswered, type AgentContextInit } from './agent-context';
export { TypedEventHub, type EventListener, type EventMap, type EventName } from './event-hub';
export { createPageReader, maxElementTextLength, readerSettings, sharedPageReader, type PageReaderOptions } from './page-reader';
export { pageStateTimeout, readSettledPage, settlePage, type ReadPageOptions } from './read-page';
export { collectionTimeouts, defaultTimeouts, TimeoutSettings, type SessionTimeouts, type TimeoutOverrides } from './timeouts';
export { dropStandingGuard, setDriverGuard, urlGuard, type StandingGuardMode, type UrlGuard, type UrlGuardInstall, type UrlGuardRequest } from './url-guard';
