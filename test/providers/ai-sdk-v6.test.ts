// AI SDK bridge against `ai` v6 (the devDependency alias `ai-v6`): the cases of ai-sdk-cases.ts with
// the bridge's `ai` import pointed at v6, so the peer range's `^6.0.0` stays tested.

import * as ai from 'ai-v6';
import aiPackage from 'ai-v6/package.json' with { type: 'json' };
import { MockLanguageModelV3 } from 'ai-v6/test';
import { describe, vi } from 'vitest';
import { describeAISDKBridge } from './ai-sdk-cases';

vi.mock('ai', () => import('ai-v6'));

describe('AISDKChatModel', () => {
  describeAISDKBridge({ version: aiPackage.version, major: 6, ai, mocks: { v3: MockLanguageModelV3 } });
});
