package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.modules.hal.BufferViewTraceSink;
import dev.ortho.modules.hal.HalTypes;

/**
 * The {@code hal} module's state in one context (IREE's {@code iree_hal_module_state_t}): the
 * module's devices, a VM ref for each and for each one's allocator (so {@code devices.get} and
 * {@code device.allocator} return the same ref every time, as IREE returns the same objects) and
 * one executable cache per device, created with the state.
 *
 * <p>Ownership: the state retains every device (its device and allocator refs each hold one
 * count) and owns its caches and idle pooled fences; {@link #free()} releases them. A forked state shares (retains) its
 * parent's caches. Immutable after construction (but for a cache of alloca params), so calls from
 * several invocations of one context may use it concurrently.
 */
final class HalState {
    final Device[] devices;
    final HalRef[] deviceRefs;
    final HalRef[] allocatorRefs;
    final ExecutableCache[] caches;
    final BufferViewTraceSink traceSink;
    final AllocationPreserves preserves;
    /** Per device: the fences {@code fence.create} hands out and takes back. */
    private final FencePool[] fencePools;
    /**
     * The params of the last {@code queue.alloca} (a program asks for the same memory type and
     * usage on every call): reused while they match, so an alloca makes no params record. Racy
     * by design: a record is immutable, and a stale read only makes a new one.
     */
    private volatile BufferParams lastAllocaParams = new BufferParams(0, 0, 0, 0, 0);

    private HalState(Device[] devices, HalRef[] deviceRefs, HalRef[] allocatorRefs, ExecutableCache[] caches,
            BufferViewTraceSink traceSink, AllocationPreserves preserves) {
        this.devices = devices;
        this.deviceRefs = deviceRefs;
        this.allocatorRefs = allocatorRefs;
        this.caches = caches;
        this.traceSink = traceSink;
        this.preserves = preserves;
        this.fencePools = new FencePool[devices.length];
        for (int i = 0; i < devices.length; i++) {
            fencePools[i] = new FencePool(devices[i]);
        }
    }

    /** A fresh state: retains the devices and creates their executable caches. */
    static HalState create(Device[] devices, BufferViewTraceSink traceSink, AllocationPreserves preserves) {
        HalRef[] refs = new HalRef[devices.length];
        HalRef[] allocatorRefs = new HalRef[devices.length];
        ExecutableCache[] caches = new ExecutableCache[devices.length];
        try {
            for (int i = 0; i < devices.length; i++) {
                refs[i] = HalRef.retain(HalTypes.DEVICE, devices[i]);
                allocatorRefs[i] = allocatorRef(devices[i]);
                caches[i] = devices[i].createExecutableCache("hal");
            }
        } catch (RuntimeException e) {
            release(refs, allocatorRefs, caches);
            throw e;
        }
        return new HalState(devices, refs, allocatorRefs, caches, traceSink, preserves);
    }

    /** A new {@code hal.allocator} ref to {@code device}'s allocator; it retains the device. */
    static HalRef allocatorRef(Device device) {
        return HalRef.retain(HalTypes.ALLOCATOR, device.allocator(), device);
    }

    /** A child state for a forked context sharing this state's executable caches. */
    HalState fork() {
        HalRef[] refs = new HalRef[devices.length];
        HalRef[] allocators = new HalRef[devices.length];
        for (int i = 0; i < devices.length; i++) {
            refs[i] = HalRef.retain(HalTypes.DEVICE, devices[i]);
            allocators[i] = allocatorRef(devices[i]);
            caches[i].retain();
        }
        return new HalState(devices, refs, allocators, caches.clone(), traceSink, preserves);
    }

    /** Releases the devices and caches; called once when the context closes. */
    void free() {
        for (FencePool pool : fencePools) {
            pool.free();
        }
        release(deviceRefs, allocatorRefs, caches);
    }

    /** The fence pool of {@code device}, or null if the device is not one of the module's. */
    FencePool fencePoolOf(Device device) {
        for (int i = 0; i < devices.length; i++) {
            if (devices[i] == device) {
                return fencePools[i];
            }
        }
        return null;
    }

    private static void release(HalRef[] refs, HalRef[] allocatorRefs, ExecutableCache[] caches) {
        for (int i = 0; i < refs.length; i++) {
            if (caches[i] != null) {
                caches[i].release();
            }
            if (allocatorRefs[i] != null) {
                allocatorRefs[i].release();
            }
            if (refs[i] != null) {
                refs[i].release();
            }
        }
    }

    /** Queue-alloca params of {@code memoryType} and {@code usage} (access 0, no affinity or alignment). */
    BufferParams allocaParams(int memoryType, int usage) {
        BufferParams last = lastAllocaParams; // volatile: a record published whole
        if (last.type() == memoryType && last.usage() == usage) {
            return last;
        }
        BufferParams made = new BufferParams(memoryType, 0, usage, 0, 0);
        lastAllocaParams = made;
        return made;
    }

    /**
     * The state's {@code hal.allocator} ref of {@code device} (borrowed), or null if the device is
     * not one of the module's.
     */
    HalRef allocatorRefOf(Device device) {
        for (int i = 0; i < devices.length; i++) {
            if (devices[i] == device) {
                return allocatorRefs[i];
            }
        }
        return null;
    }

    /**
     * The executable cache of {@code device} (the first if it is registered twice).
     *
     * @throws StatusException NOT_FOUND if the device is not one of the module's
     */
    ExecutableCache cacheFor(Device device) {
        for (int i = 0; i < devices.length; i++) {
            if (devices[i] == device) {
                return caches[i];
            }
        }
        throw new StatusException(StatusCode.NOT_FOUND, "no executable cache for device " + device
                + "; possibly a device not registered with the HAL module");
    }
}
