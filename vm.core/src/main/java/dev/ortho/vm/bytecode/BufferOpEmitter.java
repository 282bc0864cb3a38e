package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Compiler.CD_BUFFER;
import static dev.ortho.vm.bytecode.Compiler.CD_REF;
import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;
import static dev.ortho.vm.bytecode.MethodFrame.reg;
import static java.lang.constant.ConstantDescs.CD_byte;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_short;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.isa.CoreOps;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;

/**
 * Emits {@code vm.buffer} element loads and stores (core i8..i64, and the f32/f64 ones for
 * {@link FloatOpEmitter}) for {@link FunctionEmitter}: the index is checked against the buffer's
 * length (and its mutability) inline and then the buffer's {@code MemorySegment} is accessed
 * from the generated code itself, so each access site gets its own receiver profile; an access
 * that fails the check calls the {@link dev.ortho.vm.VmBuffer} method, which throws the
 * interpreter's error.
 *
 * <p>An access whose buffer register is invariant in a loop around it ({@link BufferLoops})
 * reads the segment and the byte counts from the loop's cache locals instead of the buffer:
 * one unsigned compare of the index against a loop-invariant bound, then the segment access, so
 * C2 sees a loop-invariant segment and bound and can hoist, unroll and vectorize; a failing
 * compare takes the same checked path as above.
 */
final class BufferOpEmitter {
    private static final ClassDesc CD_SEGMENT = ClassDesc.of("java.lang.foreign.MemorySegment");

    private final MethodFrame fr;
    private final CodeBuilder cb;
    /** The {@link BufferLoops} cache of the access being emitted, or -1. */
    private int cache = -1;

    BufferOpEmitter(MethodFrame fr) {
        this.fr = fr;
        this.cb = fr.cb;
    }

    /** A vm.buffer element type: VmBuffer method suffix, log2 size, value type and the layout constant. */
    enum Elem {
        I8("I8", 0, CD_byte, "OfByte"),
        I16("I16", 1, CD_short, "OfShort"),
        I32("I32", 2, CD_int, "OfInt"),
        I64("I64", 3, CD_long, "OfLong"),
        F32("F32", 2, CD_float, "OfFloat"),
        F64("F64", 3, CD_double, "OfDouble");

        final String suffix;
        final int shift;
        final ClassDesc value;
        final ClassDesc layout;

        Elem(String suffix, int shift, ClassDesc value, String layout) {
            this.suffix = suffix;
            this.shift = shift;
            this.value = value;
            this.layout = ClassDesc.of("java.lang.foreign.ValueLayout$" + layout);
        }
    }
    /**
     * Loads the buffer in ref operand 0 into {@code fr.tmpBuf} and the element index (i64 operand 1)
     * into {@code fr.tmpIdx}, and the checked byte offset (or -1) into {@code fr.tmpOff}.
     */
    private void bufferAddress(Insn i, Elem e, String what, boolean write) {
        fr.setPc(i.pc());
        cb.aload(fr.ref(reg(i, 0))).loadConstant(what);
        fr.support("buffer", CD_BUFFER, CD_REF, ConstantDescs.CD_String);
        cb.astore(fr.tmpBuf);
        fr.ld(i.a(1), 'I');
        cb.lstore(fr.tmpIdx);
        cb.aload(fr.tmpBuf).lload(fr.tmpIdx).loadConstant(e.shift);
        fr.support(write ? "offsetRw" : "offset", CD_long, CD_BUFFER, CD_long, CD_int);
        cb.lstore(fr.tmpOff);
    }

    /** Makes the next access use cache {@code c} of {@link BufferLoops} (-1: none). */
    void useCache(int c) {
        cache = c;
    }

    /**
     * Loads cache {@code c} from ref register {@code ref}: the buffer's segment and its byte
     * count, and the writable byte count (0 unless the buffer is mutable); zero bytes for a ref
     * that is no live buffer. Never throws.
     */
    void loadCache(int c, int ref) {
        cb.aload(fr.ref(ref));
        fr.support("cachedSegment", CD_SEGMENT, CD_REF);
        cb.astore(fr.cacheSegment(c));
        // Memory that is not native (a heap array) caches zero bytes: its accesses take the checked path.
        Label isNative = cb.newLabel();
        cb.getstatic(CD_SUPPORT, "NATIVE_SEGMENT", ConstantDescs.CD_Class).aload(fr.cacheSegment(c));
        cb.invokevirtual(ConstantDescs.CD_Class, "isInstance", MethodTypeDesc.of(ConstantDescs.CD_boolean, ConstantDescs.CD_Object));
        cb.ifne(isNative);
        cb.getstatic(CD_SEGMENT, "NULL", CD_SEGMENT).astore(fr.cacheSegment(c));
        cb.labelBinding(isNative);
        cb.aload(fr.cacheSegment(c));
        cb.invokeinterface(CD_SEGMENT, "byteSize", MethodTypeDesc.of(CD_long));
        cb.lstore(fr.cacheReadable(c));
        cb.aload(fr.ref(ref)).lload(fr.cacheReadable(c));
        fr.support("writableBytes", CD_long, CD_REF, CD_long);
        cb.lstore(fr.cacheWritable(c));
    }

    /** Zeroes cache {@code c} (a method's entry: every local has a value on every path). */
    void clearCache(int c) {
        cb.aconst_null().astore(fr.cacheSegment(c));
        cb.lconst_0().lstore(fr.cacheReadable(c));
        cb.lconst_0().lstore(fr.cacheWritable(c));
    }

    /**
     * The cached form of an access: the index into {@code tmpIdx}, and a jump to {@code slow}
     * unless it is below the cached byte count (readable or {@code write}able) shifted down to
     * elements; then the cache's segment, the layout and the byte offset are on the stack.
     */
    private void cachedAddress(Insn i, Elem e, boolean write, Label slow) {
        fr.setPc(i.pc());
        fr.ld(i.a(1), 'I');
        cb.lstore(fr.tmpIdx);
        cb.lload(fr.tmpIdx).lload(write ? fr.cacheWritable(cache) : fr.cacheReadable(cache));
        if (e.shift > 0) {
            cb.loadConstant(e.shift).lushr();
        }
        cb.invokestatic(ConstantDescs.CD_Long, "compareUnsigned", MethodTypeDesc.of(CD_int, CD_long, CD_long));
        cb.ifge(slow);
        cb.aload(fr.cacheSegment(cache)).getstatic(CD_SUPPORT, "L_" + e.suffix, e.layout).lload(fr.tmpIdx);
        if (e.shift > 0) {
            cb.loadConstant(e.shift).lshl();
        }
    }

    /** The checked path of a cached access: the VmBuffer of operand 0 (or its error) and the index. */
    private void slowReceiver(Insn i, String what) {
        cb.aload(fr.ref(reg(i, 0))).loadConstant(what);
        fr.support("buffer", CD_BUFFER, CD_REF, ConstantDescs.CD_String);
        cb.lload(fr.tmpIdx);
    }

    /** Pushes element {@code e} of the buffer access in operands 0 (buffer) and 1 (index). */
    void load(Insn i, Elem e, String what) {
        if (cache >= 0) {
            Label slow = cb.newLabel();
            Label done = cb.newLabel();
            cachedAddress(i, e, false, slow);
            cb.invokeinterface(CD_SEGMENT, "get", MethodTypeDesc.of(e.value, e.layout, CD_long));
            cb.goto_(done);
            cb.labelBinding(slow);
            slowReceiver(i, what);
            cb.invokevirtual(CD_BUFFER, "load" + e.suffix, MethodTypeDesc.of(e.value, CD_long));
            cb.labelBinding(done);
            return;
        }
        bufferAddress(i, e, what, false);
        Label slow = cb.newLabel();
        Label done = cb.newLabel();
        cb.lload(fr.tmpOff).lconst_0().lcmp().iflt(slow);
        cb.aload(fr.tmpBuf).invokevirtual(CD_BUFFER, "segment", MethodTypeDesc.of(CD_SEGMENT));
        cb.getstatic(CD_SUPPORT, "L_" + e.suffix, e.layout).lload(fr.tmpOff);
        cb.invokeinterface(CD_SEGMENT, "get", MethodTypeDesc.of(e.value, e.layout, CD_long));
        cb.goto_(done);
        cb.labelBinding(slow);
        cb.aload(fr.tmpBuf).lload(fr.tmpIdx);
        cb.invokevirtual(CD_BUFFER, "load" + e.suffix, MethodTypeDesc.of(e.value, CD_long));
        cb.labelBinding(done);
    }

    /** Stores access 2 (read as {@code t}, narrowed to {@code e}) at the buffer access in operands 0 and 1. */
    void store(Insn i, Elem e, String what, char t) {
        if (cache >= 0) {
            Label slow = cb.newLabel();
            Label done = cb.newLabel();
            cachedAddress(i, e, true, slow);
            storeValue(i, e, t);
            cb.invokeinterface(CD_SEGMENT, "set", MethodTypeDesc.of(CD_void, e.layout, CD_long, e.value));
            cb.goto_(done);
            cb.labelBinding(slow);
            slowReceiver(i, what);
            storeValue(i, e, t);
            cb.invokevirtual(CD_BUFFER, "store" + e.suffix, MethodTypeDesc.of(CD_void, CD_long, e.value));
            cb.labelBinding(done);
            return;
        }
        bufferAddress(i, e, what, true);
        Label slow = cb.newLabel();
        Label done = cb.newLabel();
        cb.lload(fr.tmpOff).lconst_0().lcmp().iflt(slow);
        cb.aload(fr.tmpBuf).invokevirtual(CD_BUFFER, "segment", MethodTypeDesc.of(CD_SEGMENT));
        cb.getstatic(CD_SUPPORT, "L_" + e.suffix, e.layout).lload(fr.tmpOff);
        storeValue(i, e, t);
        cb.invokeinterface(CD_SEGMENT, "set", MethodTypeDesc.of(CD_void, e.layout, CD_long, e.value));
        cb.goto_(done);
        cb.labelBinding(slow);
        cb.aload(fr.tmpBuf).lload(fr.tmpIdx);
        storeValue(i, e, t);
        cb.invokevirtual(CD_BUFFER, "store" + e.suffix, MethodTypeDesc.of(CD_void, CD_long, e.value));
        cb.labelBinding(done);
    }

    private void storeValue(Insn i, Elem e, char t) {
        fr.ld(i.a(2), t);
        if (e == Elem.I8) {
            cb.i2b();
        } else if (e == Elem.I16) {
            cb.i2s();
        }
    }


    /** Emits the core {@code vm.buffer.load/store} op {@code i}; false if it is not one. */
    boolean emit(Insn i) {
        switch (i.opcode()) {
            case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S -> {
                load(i, Elem.I8, "source_buffer");
                if (i.opcode() == CoreOps.BUFFER_LOAD_I8_U) {
                    cb.loadConstant(0xFF).iand();
                }
                fr.st(i.a(2), 'i');
            }
            case CoreOps.BUFFER_LOAD_I16_U, CoreOps.BUFFER_LOAD_I16_S -> {
                load(i, Elem.I16, "source_buffer");
                if (i.opcode() == CoreOps.BUFFER_LOAD_I16_U) {
                    cb.loadConstant(0xFFFF).iand();
                }
                fr.st(i.a(2), 'i');
            }
            case CoreOps.BUFFER_LOAD_I32 -> {
                load(i, Elem.I32, "source_buffer");
                fr.st(i.a(2), 'i');
            }
            case CoreOps.BUFFER_LOAD_I64 -> {
                load(i, Elem.I64, "source_buffer");
                fr.st(i.a(2), 'I');
            }
            case CoreOps.BUFFER_STORE_I8 -> store(i, Elem.I8, "target_buffer", 'i');
            case CoreOps.BUFFER_STORE_I16 -> store(i, Elem.I16, "target_buffer", 'i');
            case CoreOps.BUFFER_STORE_I32 -> store(i, Elem.I32, "target_buffer", 'i');
            case CoreOps.BUFFER_STORE_I64 -> store(i, Elem.I64, "target_buffer", 'I');
            default -> {
                return false;
            }
        }
        return true;
    }
}
