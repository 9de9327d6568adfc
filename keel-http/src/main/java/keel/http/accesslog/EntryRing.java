package keel.http.accesslog;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded multi-producer, single-consumer ring: any thread {@link #offer}s, one thread
 * {@link #poll}s. Lock-free and allocation-free: an offer claims a place with one compare-and-set on
 * the producers' index and publishes the element in it; past {@code capacity} elements it refuses.
 *
 * <pre>
 *   consumed ──► [ c ][ c+1 ] … [ p-1 ] ◄── claimed (p - c ≤ capacity; a claimed place may not hold its element yet)
 * </pre>
 *
 * @param <T> the elements
 */
final class EntryRing<T> {
    private final AtomicReferenceArray<T> slots;
    private final int mask;
    private final int capacity;
    private final AtomicLong claimed = new AtomicLong();
    /** Written by the consumer only (its own reads need no fence); read by producers to see the free places. */
    private volatile long consumed;

    EntryRing(int capacity) {
        if (capacity < 1 || capacity > 1 << 30) throw new IllegalArgumentException("capacity must be in 1..2^30: " + capacity);
        this.capacity = capacity;
        int size = Integer.highestOneBit(capacity) == capacity ? capacity : Integer.highestOneBit(capacity) << 1;
        this.slots = new AtomicReferenceArray<>(size);
        this.mask = size - 1;
    }

    /** Any thread: adds {@code element} and returns how many are queued with it, or 0 when the ring is full. */
    int offer(T element) {
        while (true) {
            long index = claimed.get();
            long size = index - consumed;
            if (size >= capacity) return 0;
            if (claimed.compareAndSet(index, index + 1)) {
                slots.setRelease((int) index & mask, element);
                return (int) size + 1;
            }
        }
    }

    /** Consumer thread: the oldest element, or null when none is published yet. */
    T poll() {
        long index = consumed;
        int slot = (int) index & mask;
        T element = slots.getAcquire(slot);
        if (element == null) return null;
        slots.setRelease(slot, null);
        consumed = index + 1; // after the slot is cleared: a producer that sees the place free finds it empty
        return element;
    }

    /** True when nothing is claimed past what was consumed (a claimed element may still be on its way). */
    boolean isEmpty() {
        return claimed.get() == consumed;
    }

    /** Claimed and not yet consumed. */
    int size() {
        return (int) (claimed.get() - consumed);
    }
}
