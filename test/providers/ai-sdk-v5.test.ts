// AI SDK bridge against `ai` v5 (the devDependency alias `ai-v5`): the cases of ai-sdk-cases.ts with
// the bridge's `ai` import pointed at v5, so the peer range's `^5.0.0` stays tested.

import * as ai from 'ai-v5';
import aiPackage from 'ai-v5/package.json' with { type: 'json' };
import { MockLanguageModelV2 } from 'ai-v5/test';
import { describe, vi } from 'vitest';
import { describeAISDKBridge } from './ai-sdk-cases';

vi.mock('ai', () => import('ai-v5'));

describe('AISDKChatModel', () => {
  describeAISDKBridge({ version: aiPackage.version, major: 5, ai, mocks: { v2: MockLanguageModelV2 } });
});
