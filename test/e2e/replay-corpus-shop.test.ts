// The replay corpus of the shop (test/e2e/replay-corpus.ts): its run recorded once, replayed on each shop variant of
// test/fixtures/replay-corpus and judged by what the server received.
import { describeReplayCorpus } from './replay-corpus';

describeReplayCorpus('shop');
