package dev.ortho.itest.examples;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.ElementType;
import dev.ortho.itest.OrthoFramework;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The MLP example ({@code examples/mlp.vmasm}) end to end through the services, in Felix and
 * Equinox: assembled with the framework's {@link InstructionExtension} services, loaded as a
 * bytecode module, linked after the {@code hal} module that the {@link ModuleRegistry} creates
 * from its {@code ModuleProvider} service (whose device comes from the {@code DriverRegistry}
 * and prepares the embedded {@code vmvx-bytecode-fb} executable with the {@code vmvx} module).
 * The output is checked against a plain-Java forward pass over the parameters read back from the
 * module's own rodata.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class MlpExampleIT {
    private static final long WAIT_NANOS = 10_000_000_000L;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int IN = 784;
    private static final int HIDDEN = 128;
    private static final int OUT = 10;

    @Inject
    private ModuleRegistry registry;

    @Inject
    private Instance instance;

    @Inject
    private BundleContext bundleContext;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void mlpPredictsWhatAPlainJavaForwardPassComputes() throws Exception {
        awaitTrue("hal module provider tracked", () -> Integer.valueOf(7).equals(registry.modules().get("hal")));
        List<InstructionExtension> extensions = new ArrayList<>();
        for (ServiceReference<InstructionExtension> ref
                : bundleContext.getServiceReferences(InstructionExtension.class, null)) {
            extensions.add(bundleContext.getService(ref));
        }
        Path source = Path.of(System.getProperty("it.examples.dir"), "mlp.vmasm");
        byte[] archive = BytecodeArchive.write(new Assembler(extensions).assemble(Files.readString(source), "mlp.vmasm"));
        ModuleDef def = BytecodeArchive.read(archive);
        float[] x = new float[IN];
        for (int i = 0; i < IN; i++) {
            x[i] = ((i * 37) % 101) / 100f;
        }
        double[] expected = reference(x, floats(def, 3), floats(def, 4), floats(def, 5), floats(def, 6));

        try (Context context = Context.create(instance)) {
            // The hal module first: creating it registers the hal.* ref types the program's
            // signatures name (as IREE's tools register the HAL types before loading a module).
            Module hal = registry.create(instance, "hal", 7);
            registry.registerWithDependencies(context, hal, BytecodeModule.create(instance, def, extensions));
            Device device = device(context);
            VmList inputs = VmList.ofVariants(1);
            VmList outputs = VmList.ofVariants(1);
            try (BufferView view = BufferView.allocate(device.allocator(), BufferParams.hostLocal(), new long[] {1, IN},
                    ElementType.FLOAT_32)) {
                MemorySegment data = MemorySegment.ofArray(new byte[4 * IN]);
                for (int i = 0; i < IN; i++) {
                    data.setAtIndex(F32, i, x[i]);
                }
                view.buffer().write(0, data);
                inputs.pushRefMove(HalRefs.wrap(view));
                Invocation.invoke(context, context.resolveFunction("mlp.predict"), inputs, outputs);
                BufferView result = HalRefs.bufferView(outputs.getRef(0));
                assertArrayEquals(new long[] {1, OUT}, result.shape());
                MemorySegment out = MemorySegment.ofArray(new byte[4 * OUT]);
                result.buffer().read(0, out);
                double sum = 0;
                for (int i = 0; i < OUT; i++) {
                    assertEquals("class " + i, expected[i], out.getAtIndex(F32, i), 2e-6);
                    sum += out.getAtIndex(F32, i);
                }
                assertEquals(1.0, sum, 1e-5);
            } finally {
                inputs.release();
                outputs.release();
            }
        }
    }

    private static Device device(Context context) {
        VmList index = VmList.ofVariants(1);
        VmList out = VmList.ofVariants(1);
        try {
            index.pushI32(0);
            Invocation.invoke(context, context.resolveFunction("hal.devices.get"), index, out);
            Device device = HalRefs.device(out.getRef(0));
            assertTrue("the hal module has a device", device != null);
            return device; // kept alive by the context's hal module state
        } finally {
            index.release();
            out.release();
        }
    }

    private static float[] floats(ModuleDef def, int rodata) {
        return def.rodata().get(rodata).data().toArray(F32);
    }

    /** softmax(relu(x W1 + b1) W2 + b2) in double precision; weights row-major. */
    private static double[] reference(float[] x, float[] w1, float[] b1, float[] w2, float[] b2) {
        double[] hidden = new double[HIDDEN];
        for (int n = 0; n < HIDDEN; n++) {
            double acc = b1[n];
            for (int k = 0; k < IN; k++) {
                acc += (double) x[k] * w1[k * HIDDEN + n];
            }
            hidden[n] = Math.max(acc, 0);
        }
        double[] y = new double[OUT];
        double max = Double.NEGATIVE_INFINITY;
        for (int n = 0; n < OUT; n++) {
            double acc = b2[n];
            for (int k = 0; k < HIDDEN; k++) {
                acc += hidden[k] * w2[k * OUT + n];
            }
            y[n] = acc;
            max = Math.max(max, acc);
        }
        double sum = 0;
        for (int n = 0; n < OUT; n++) {
            y[n] = Math.exp(y[n] - max);
            sum += y[n];
        }
        for (int n = 0; n < OUT; n++) {
            y[n] /= sum;
        }
        return y;
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting: " + what);
            }
            Thread.sleep(10);
        }
    }
}
