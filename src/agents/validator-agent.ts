// The validator: an optional, independent check of a finished task. When the Planner says done,
// it reads the conversation and the proposed answer and accepts it, or sends the loop back with
// its reason. It never touches the browser.

import { z } from 'zod';
import { generateObject } from '../llm/generate-object';
import { withoutImages } from '../llm/images';
import { toModelJsonSchema } from '../llm/json-schema';
import type { LLMClient } from '../llm/types';
import { validatorSystemPrompt } from '../prompts/validator-system';
import { agentCallOptions, type AgentContext } from './agent-context';

const validatorOutputSchema = z.object({
  is_valid: z.preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() === 'true' : value), z.boolean()),
  reason: z.preprocess((value) => (value === null || value === undefined ? '' : value), z.string()),
});

const validatorJsonSchema = toModelJsonSchema(
  z.object({
    is_valid: z.boolean().describe('Whether the answer completes the task, supported by the evidence'),
    reason: z.string().describe('Why; when rejected, exactly what is missing or wrong'),
  }),
);

/** The validator's verdict. */
export interface Verdict {
  readonly valid: boolean;
  readonly reason: string;
}

/** The validator agent. */
export class ValidatorAgent {
  constructor(
    private readonly context: AgentContext,
    private readonly llm: LLMClient,
  ) {}

  /** Judges `answer` against the task and the conversation. */
  async validate(answer: string): Promise<Verdict> {
    const { context, llm } = this;
    const messages = [
      ...withoutImages(context.messages.messages(validatorSystemPrompt())),
      {
        role: 'user' as const,
        content: `The agent proposes this final answer:\n<proposed_answer>\n${answer}\n</proposed_answer>\nDoes it complete the user's request?`,
      },
    ];
    const result = await generateObject({
      client: llm,
      messages,
      name: 'validator_output',
      description: 'Whether the proposed final answer completes the task',
      schema: validatorOutputSchema,
      jsonSchema: validatorJsonSchema,
      ...agentCallOptions(context, 'validator', llm),
    });
    return { valid: result.object.is_valid, reason: result.object.reason };
  }
}
