// plannav/bullmq: a collection on many machines, as BullMQ jobs on Redis (Node only; optional peers
// `bullmq` and `ioredis`). The public face of the entry point: nothing else is exported.

export { createCollectionCoordinator, type CollectionCoordinator, type CollectionCoordinatorOptions } from './coordinator';
export { createCollectionWorker, type CollectionWorker, type CollectionWorkerEventMap, type CollectionWorkerOptions } from './worker';
export type { RedisConnection } from './protocol';
export { readCollectionRecords, readCollectionRejects, type ReadCollectionRecordsOptions } from './records';
