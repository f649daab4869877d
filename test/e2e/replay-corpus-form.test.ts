// The replay corpus of the form (test/e2e/replay-corpus.ts): its run recorded once, replayed on each form variant of
// test/fixtures/replay-corpus and judged by what the server received.
import { describeReplayCorpus } from './replay-corpus';

describeReplayCorpus('form');
