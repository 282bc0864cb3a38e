package dev.ortho.bench.vm;

import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmList;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Element access on a list of {@value #SIZE} i32 values, in ns per element: {@code get} sums
 * every element, {@code set} stores {@code index + offset} into every element (values up to
 * ~1100, so most boxed {@code Integer}s are outside the JDK's cache). Ortho: a value list
 * ({@link VmList#ofValues} of I32, with IREE's range check and value conversion on each
 * access); peers: {@code ArrayList<Integer>} and a plain {@code int[]}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class VmListBenchmark {
    static final int SIZE = 1024;

    @Param({"ortho", "arraylist", "array"})
    public String impl;

    /** Read from a field so stored values are not constants. */
    public int offset = 77;

    private VmList list;
    private ArrayList<Integer> arrayList;
    private int[] array;

    @Setup(Level.Trial)
    public void setUp() {
        list = VmList.ofValues(ValueType.I32, SIZE);
        list.resize(SIZE);
        arrayList = new ArrayList<>(SIZE);
        array = new int[SIZE];
        for (int i = 0; i < SIZE; i++) {
            list.setI32(i, i);
            arrayList.add(i);
            array[i] = i;
        }
    }

    @Benchmark
    @OperationsPerInvocation(SIZE)
    public int get() {
        int sum = 0;
        switch (impl) {
            case "ortho" -> {
                VmList l = list;
                for (int i = 0; i < SIZE; i++) {
                    sum += l.getI32(i);
                }
            }
            case "arraylist" -> {
                ArrayList<Integer> l = arrayList;
                for (int i = 0; i < SIZE; i++) {
                    sum += l.get(i);
                }
            }
            default -> {
                int[] a = array;
                for (int i = 0; i < SIZE; i++) {
                    sum += a[i];
                }
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(SIZE)
    public void set() {
        int k = offset;
        switch (impl) {
            case "ortho" -> {
                VmList l = list;
                for (int i = 0; i < SIZE; i++) {
                    l.setI32(i, i + k);
                }
            }
            case "arraylist" -> {
                ArrayList<Integer> l = arrayList;
                for (int i = 0; i < SIZE; i++) {
                    l.set(i, i + k);
                }
            }
            default -> {
                int[] a = array;
                for (int i = 0; i < SIZE; i++) {
                    a[i] = i + k;
                }
            }
        }
    }
}
