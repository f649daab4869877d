// AI SDK bridge against the current `ai` major (v7, the devDependency): the shared cases with its own
// v4 models and with the v3 models that v6-era providers still ship. ai-sdk-v6/-v5.test.ts run the
// same cases against the older majors the peer range keeps.

import * as ai from 'ai';
import aiPackage from 'ai/package.json' with { type: 'json' };
import { MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe } from 'vitest';
import { describeAISDKBridge } from './ai-sdk-cases';

describe('AISDKChatModel', () => {
  describeAISDKBridge({ version: aiPackage.version, major: 7, ai, mocks: { v4: MockLanguageModelV4, v3: MockLanguageModelV3 } });
});
