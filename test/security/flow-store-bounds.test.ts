// Attacks on the flow store through what a flow builds from a browser's input: a huge value, a key with spaces,
// control characters or another provider's namespace, an entry that never expires, and a flood of entries into
// the in-memory store. Each is refused with a typed error, and nothing grows without limit.
import { describe, expect, it } from 'vitest';
import { AdapterError } from '../../src/core/errors.js';
import { FLOW_STORE_LIMITS, scopedFlowStore } from '../../src/core/flow-store/scoped.js';
import { memoryFlowStore } from '../../src/core/flow-store/store.js';
import { flowStoreNamespace } from '../../src/flows/runtime/deps.js';

describe('flow store bounds', () => {
  it('refuses a value over the size limit, and takes one at the limit', async () => {
    const store = scopedFlowStore(memoryFlowStore(), 'flow:x:');
    const atLimit = 'a'.repeat(FLOW_STORE_LIMITS.maxValueBytes - 2); // two bytes of JSON quotes
    await store.set('ok', atLimit, 60);
    expect(await store.get('ok')).toBe(atLimit);
    await expect(store.set('big', `${atLimit}a`, 60)).rejects.toThrow(TypeError);
    // Multi-byte characters count as bytes, not as characters.
    await expect(store.set('wide', 'é'.repeat(FLOW_STORE_LIMITS.maxValueBytes / 2), 60)).rejects.toThrow(TypeError);
    expect(await store.get('big')).toBeNull();
  });

  it('refuses keys that are empty, too long, or carry spaces or control characters', async () => {
    const store = scopedFlowStore(memoryFlowStore(), 'flow:x:');
    for (const key of ['', 'a'.repeat(FLOW_STORE_LIMITS.maxKeyLength + 1), 'a b', 'a\nb', 'a\u0000', 'é', 42 as unknown as string]) {
      await expect(store.set(key, 1, 60), JSON.stringify(key)).rejects.toThrow(TypeError);
      await expect(store.get(key)).rejects.toThrow(TypeError);
      await expect(store.take(key)).rejects.toThrow(TypeError);
    }
    await store.set('a'.repeat(FLOW_STORE_LIMITS.maxKeyLength), 1, 60);
  });

  it('refuses an entry that would never expire, or a value that is not JSON', async () => {
    const store = scopedFlowStore(memoryFlowStore(), 'flow:x:');
    for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, FLOW_STORE_LIMITS.maxTtlSeconds + 1]) {
      await expect(store.set('k', 1, ttl), String(ttl)).rejects.toThrow(TypeError);
    }
    await expect(store.set('k', undefined, 60)).rejects.toThrow(TypeError);
    await expect(store.set('k', () => 1, 60)).rejects.toThrow(TypeError);
  });

  it("keeps one provider's keys out of another's: a key cannot climb out of its namespace", async () => {
    const backend = memoryFlowStore();
    const device = scopedFlowStore(backend, flowStoreNamespace('device'));
    const other = scopedFlowStore(backend, flowStoreNamespace('other'));
    await device.set('secret', 'mine', 60);
    // What the other provider would have to write to reach it: refused or namespaced under its own prefix.
    expect(await other.get('flow:device:secret')).toBeNull();
    expect(await other.get('../device:secret')).toBeNull();
    // A provider id with a colon cannot make its namespace another's prefix.
    expect(flowStoreNamespace('device:secret')).not.toBe(flowStoreNamespace('device') + 'secret:');
    expect(await device.take('secret')).toBe('mine');
  });

  it('the in-memory store refuses entries beyond its limit with a typed error, and makes room as entries expire', async () => {
    const store = scopedFlowStore(memoryFlowStore({ maxEntries: 50 }), 'flow:x:');
    for (let i = 0; i < 49; i++) await store.set(`k${i}`, i, 60);
    await store.set('short', 1, 0.05);
    const refused = await store.set('one-more', 1, 60).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(AdapterError);
    expect((refused as AdapterError).type).toBe('AdapterError');
    await new Promise((r) => setTimeout(r, 80));
    await store.set('one-more', 1, 60); // the expired entry was swept
    await store.set('k0', 'replaced', 60); // replacing an entry is never refused
    expect(await store.get('k0')).toBe('replaced');
  });
});
