/** BullMQ queue names; their keys live under the bridge's prefix (keys.queuePrefix()). */
export const QUEUES = { reconcile: 'reconcile', sync: 'sync', inputs: 'inputs' } as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
