package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.modules.hal.BufferViewTraceSink;
import dev.ortho.modules.hal.HalTypes;

/**
 * The {@code hal} module's state in one context (IREE's {@code iree_hal_module_state_t}): the
 * module's devices, a VM ref for each (so {@code devices.get} returns the same ref every time) and
 * one executable cache per device, created with the state.
 *
 * <p>Ownership: the state retains every device and owns its caches; {@link #free()} releases
 * them. A forked state shares (retains) its parent's caches. Immutable after construction, so
 * calls from several invocations of one context may use it concurrently.
 */
final class HalState {
    final Device[] devices;
    final HalRef[] deviceRefs;
    final ExecutableCache[] caches;
    final BufferViewTraceSink traceSink;
    final AllocationPreserves preserves;

    private HalState(Device[] devices, HalRef[] deviceRefs, ExecutableCache[] caches, BufferViewTraceSink traceSink,
            AllocationPreserves preserves) {
        this.devices = devices;
        this.deviceRefs = deviceRefs;
        this.caches = caches;
        this.traceSink = traceSink;
        this.preserves = preserves;
    }

    /** A fresh state: retains the devices and creates their executable caches. */
    static HalState create(Device[] devices, BufferViewTraceSink traceSink, AllocationPreserves preserves) {
        HalRef[] refs = new HalRef[devices.length];
        ExecutableCache[] caches = new ExecutableCache[devices.length];
        try {
            for (int i = 0; i < devices.length; i++) {
                refs[i] = HalRef.retain(HalTypes.DEVICE, devices[i]);
                caches[i] = devices[i].createExecutableCache("hal");
            }
        } catch (RuntimeException e) {
            release(refs, caches);
            throw e;
        }
        return new HalState(devices, refs, caches, traceSink, preserves);
    }

    /** A child state for a forked context sharing this state's executable caches. */
    HalState fork() {
        HalRef[] refs = new HalRef[devices.length];
        for (int i = 0; i < devices.length; i++) {
            refs[i] = HalRef.retain(HalTypes.DEVICE, devices[i]);
            caches[i].retain();
        }
        return new HalState(devices, refs, caches.clone(), traceSink, preserves);
    }

    /** Releases the devices and caches; called once when the context closes. */
    void free() {
        release(deviceRefs, caches);
    }

    private static void release(HalRef[] refs, ExecutableCache[] caches) {
        for (int i = 0; i < refs.length; i++) {
            if (caches[i] != null) {
                caches[i].release();
            }
            if (refs[i] != null) {
                refs[i].release();
            }
        }
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
