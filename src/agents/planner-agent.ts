// The Planner: reads the shared conversation, judges progress, plans the next steps and alone
// decides when the task is done. It never touches the browser itself.

import { z } from 'zod';
import type { PlanInfo } from '../events';
import { generateObject } from '../llm/generate-object';
import { hasImages, withoutImages } from '../llm/images';
import { toModelJsonSchema } from '../llm/json-schema';
import { plannerSystemPrompt } from '../prompts/planner-system';
import { guardModelOutput } from '../security/injection-guard';
import { InjectionReportFilter } from '../security/injection-report';
import { agentCallOptions, type AgentContext } from './agent-context';

/** Models write booleans as strings at times: accept "true"/"false" in any case. */
const lenientBoolean = z.preprocess((value) => {
  if (typeof value === 'string') {
    const lowered = value.trim().toLowerCase();
    if (lowered === 'true') return true;
    if (lowered === 'false') return false;
  }
  return value;
}, z.boolean());

/** Models write a list of steps at times: accept an array and join it. */
const lenientText = z.preprocess((value) => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(String).join('\n');
  return value;
}, z.string());

/** What the Planner's output is validated against. */
export const plannerOutputSchema = z.object({
  observation: lenientText,
  challenges: lenientText,
  done: lenientBoolean,
  next_steps: lenientText,
  final_answer: lenientText,
  reasoning: lenientText,
  web_task: lenientBoolean.default(true),
});

/** The Planner's output as the model writes it. */
export type PlannerOutput = z.output<typeof plannerOutputSchema>;

const plannerJsonSchema = toModelJsonSchema(
  z.object({
    observation: z.string().describe('The current situation'),
    challenges: z.string().describe('Obstacles or risks'),
    done: z.boolean().describe('Whether the whole task is complete'),
    next_steps: z.string().describe('The next 2-3 high-level steps; empty when done'),
    final_answer: z.string().describe('The answer for the user when done; empty otherwise'),
    reasoning: z.string().describe('Why'),
    web_task: z.boolean().describe('Whether the task needs a browser'),
  }),
);

/** One Planner decision. */
export interface PlannerStepResult {
  /** The decision as the model made it, for the loop, the events and the result. */
  readonly plan: PlanInfo;
  /** The output as the conversation stores it, for the history: guarded by the injection guard. */
  readonly output: PlannerOutput;
}

/** Converts the model's field names to the camelCase ones events and results use. */
function toPlanInfo(output: PlannerOutput): PlanInfo {
  return {
    observation: output.observation,
    challenges: output.challenges,
    done: output.done,
    nextSteps: output.next_steps,
    finalAnswer: output.final_answer,
    reasoning: output.reasoning,
    webTask: output.web_task,
  };
}

/** The Planner agent. */
export class PlannerAgent {
  /** What the injection guard already reported in this step. */
  private readonly injectionReports = new InjectionReportFilter();

  constructor(private readonly context: AgentContext) {}

  /** Asks the Planner for its decision and adds the plan to the conversation (before the state). */
  async plan(): Promise<PlannerStepResult> {
    const { context } = this;
    const llm = context.plannerLLM;
    let messages = context.messages.messages(plannerSystemPrompt());
    const wantsImages = context.settings.useVision && context.settings.useVisionForPlanner;
    if (hasImages(messages) && (!wantsImages || llm.supportsImages === false)) {
      if (wantsImages) {
        context.emit('warning', 'planner', { code: 'IMAGES_UNSUPPORTED', message: `${llm.model} does not accept images; the Planner got text only.` });
      }
      messages = withoutImages(messages);
    }
    const result = await generateObject({
      client: llm,
      messages,
      name: 'planner_output',
      description: 'The Planner decision',
      schema: plannerOutputSchema,
      jsonSchema: plannerJsonSchema,
      ...agentCallOptions(context, 'planner', llm),
    });
    // A plan that quotes a page (a fake closing tag, "ignore previous instructions") is stored
    // guarded, so it cannot close our tags for the Navigator that reads it next.
    const stored = guardModelOutput(result.object);
    const fresh =
      stored.findings.length > 0
        ? this.injectionReports.take(context.nSteps, { url: context.currentState?.url ?? '', source: 'model-output', findings: stored.findings })
        : undefined;
    if (fresh) context.emit('injection-detected', 'planner', fresh);
    context.messages.addPlan(JSON.stringify(stored.output));
    return { plan: toPlanInfo(result.object), output: stored.output };
  }
}
