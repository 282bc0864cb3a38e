package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.Shape;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.util.ArrayList;
import java.util.List;

/** {@code hal.buffer_view.*}: create, assert, query and trace shaped views of buffers. */
final class BufferViewExports {
    /** Most shape dimensions a call may pass (IREE's stack limit for the shape span). */
    static final int MAX_RANK = 128;
    /** Most buffer views one trace call may pass. */
    static final int MAX_TRACE_VIEWS = 128;

    private BufferViewExports() {
    }

    static BufferView view(CallBuffer args, int refSlot) {
        return Args.deref(args, refSlot, HalTypes.BUFFER_VIEW, BufferView.class);
    }

    private static long[] dims(CallBuffer args, int countSlot) {
        int rank = args.i32(countSlot);
        long[] dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = args.i64(countSlot + 1 + i);
        }
        return dims;
    }

    /**
     * {@code buffer_view.create(buffer, offset, length, element_type, encoding_type, [dims...]) ->
     * view}, {@code 0rIIiiCID_r}: views {@code [offset, offset + length)} of the buffer (a subspan
     * unless that is the whole buffer).
     */
    static CallOutcome create(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int rank = Args.spanCount(a, 4);
        Args.requireLayout(call, rank);
        Args.requireAtMost(rank, MAX_RANK, "shape dimensions");
        Buffer source = BufferExports.buffer(a, 0);
        long offset = a.i64(0);
        long length = a.i64(1);
        int elementType = a.i32(2);
        int encodingType = a.i32(3);
        long[] dims = dims(a, 4);
        long sourceLength = source.byteLength();
        if (!fits(offset, length, sourceLength)) {
            try { // the driver's own words for the bad range, as its subspan gives them
                source.subspan(offset, length).release();
            } catch (StatusException e) {
                throw e.annotate("invalid subspan of an existing buffer (source_offset=" + offset + ", length="
                        + length + ")");
            }
        }
        // The subspan IREE makes here is made when buffer_view.buffer (or a host) first asks for the
        // view's buffer: results that are only returned and released never need one.
        BufferView view = BufferView.createAdopting(source, offset, length, dims, elementType, encodingType);
        HalRef ref = HalRef.adopt(HalTypes.BUFFER_VIEW, view, view);
        boolean whole = offset == 0 && (length == Buffer.WHOLE_BUFFER || length == sourceLength);
        if (whole && a.ref(0) instanceof HalRef sourceRef) { // a view of the whole buffer:
            ref.setViewBufferRef(sourceRef); // IREE's buffer_view.buffer then returns the buffer it was made from
        }
        call.results().setRef(0, ref);
        return CallOutcome.COMPLETED;
    }

    /** Whether {@code [offset, offset + length)} ({@code length} -1: to the end) lies in {@code bufferLength} bytes. */
    private static boolean fits(long offset, long length, long bufferLength) {
        if (offset < 0 || offset > bufferLength) {
            return false;
        }
        return length == Buffer.WHOLE_BUFFER || length >= 0 && length <= bufferLength - offset;
    }

    /**
     * {@code buffer_view.assert(view, message, element_type, encoding_type, [dims...])},
     * {@code 0rriiCID_v}: IREE's {@code iree_hal_modules_buffer_view_assert}: INVALID_ARGUMENT if
     * the encoding differs (unless the view's is opaque), the element type is incompatible (opaque
     * views match anything, integers of one width match each other), or the shape differs.
     */
    static CallOutcome assertView(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int rank = Args.spanCount(a, 2);
        Args.requireLayout(call, rank);
        Args.requireAtMost(rank, MAX_RANK, "shape dimensions");
        BufferView view = view(a, 0);
        VmBuffer message = Args.vmBuffer(a, 1); // decoded only to report a mismatch
        int expectedElementType = a.i32(0);
        int expectedEncoding = a.i32(1);
        int encoding = view.encodingType();
        if (encoding != EncodingType.OPAQUE && encoding != expectedEncoding) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, Args.text(message) + " encoding mismatch; expected "
                    + hex(expectedEncoding) + " but have " + hex(encoding));
        }
        int elementType = view.elementType();
        if (!compatible(elementType, expectedElementType)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, Args.text(message) + " element type mismatch; "
                    + "expected " + ElementType.format(expectedElementType) + " (" + hex(expectedElementType)
                    + ") but have " + ElementType.format(elementType) + " (" + hex(elementType) + ")");
        }
        if (view.rank() != rank) {
            throw shapeMismatch(view, a, new StatusException(StatusCode.INVALID_ARGUMENT, Args.text(message)
                    + " shape rank mismatch; expected " + rank + (rank == 0 ? " (scalar)" : "") + " but have "
                    + view.rank() + (view.rank() == 0 ? " (scalar)" : "")));
        }
        for (int i = 0; i < rank; i++) {
            long expected = a.i64(3 + i);
            if (view.dim(i) != expected) {
                throw shapeMismatch(view, a, new StatusException(StatusCode.INVALID_ARGUMENT, Args.text(message)
                        + " shape dimension " + i + " mismatch; expected " + expected + " but have " + view.dim(i)));
            }
        }
        return CallOutcome.COMPLETED;
    }

    private static StatusException shapeMismatch(BufferView view, CallBuffer a, StatusException e) {
        return e.annotate("expected shape `" + Shape.format(dims(a, 2)) + "`, actual shape `"
                + Shape.format(view.shape()) + "`");
    }

    /** True if a view of {@code actual} elements satisfies an expectation of {@code expected}. */
    static boolean compatible(int actual, int expected) {
        if (ElementType.isOpaque(actual)) {
            return true;
        }
        if (ElementType.isInteger(actual) && ElementType.isInteger(expected)
                && ElementType.bitCount(actual) == ElementType.bitCount(expected)) {
            return true;
        }
        return actual == expected;
    }

    private static String hex(int value) {
        return String.format("%08X", value);
    }

    /**
     * {@code buffer_view.buffer(view) -> buffer}, {@code 0r_r}: the viewed buffer, as the same ref
     * on every call for one view ref (IREE returns the buffer object itself): the ref the view was
     * made from when it views a whole buffer, else one made on the first call
     * ({@link HalRef#viewBufferRef}).
     */
    static CallOutcome buffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        BufferView view = view(a, 0);
        call.results().setRef(0, RefObject.retain(((HalRef) a.ref(0)).viewBufferRef(view.buffer())));
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer_view.dim(view, index) -> dim}, {@code 0ri_I}: OUT_OF_RANGE past the rank. */
    static CallOutcome dim(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        call.results().setI64(0, view(a, 0).dim(a.i32(0)));
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer_view.element_type(view) -> type}, {@code 0r_i}. */
    static CallOutcome elementType(HalState state, NativeCall call) {
        call.results().setI32(0, view(call.args(), 0).elementType());
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer_view.encoding_type(view) -> type}, {@code 0r_i}. */
    static CallOutcome encodingType(HalState state, NativeCall call) {
        call.results().setI32(0, view(call.args(), 0).encodingType());
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer_view.rank(view) -> rank}, {@code 0r_i}. */
    static CallOutcome rank(HalState state, NativeCall call) {
        call.results().setI32(0, view(call.args(), 0).rank());
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code buffer_view.trace(key, [views...])}, {@code 0rCrD_v}: hands the views to the module's
     * trace sink; without one it does nothing (IREE's behaviour without a debug sink).
     */
    static CallOutcome trace(HalState state, NativeCall call) {
        if (state.traceSink == null) {
            return CallOutcome.COMPLETED;
        }
        CallBuffer a = call.args();
        int count = Args.spanCount(a, 0);
        Args.requireLayout(call, count);
        String key = Args.string(a, 0);
        if (count > MAX_TRACE_VIEWS) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "too many buffer views (" + count
                    + " > " + MAX_TRACE_VIEWS + ") for a single trace call");
        }
        List<BufferView> views = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            views.add(view(a, 1 + i));
        }
        state.traceSink.trace(key, List.copyOf(views));
        return CallOutcome.COMPLETED;
    }
}
