package dev.ortho.modules.io.parameters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import dev.ortho.hal.text.BufferViewText;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The embedding path of the README: {@code linear.vmfb} (iree-compile 3.12, vmvx, weight and bias
 * externalized to scope {@code model}) run through the Java API with {@code linear.irpa}, against
 * iree-run-module's output ({@code linear_output.npy}, generate.sh), on the CPU devices and a
 * remote device over TCP (which cannot use the mapping in place, so every parameter is copied).
 */
class CompiledModuleTest {
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localSyncFactory());
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localTaskFactory());
        registry.register(new RemoteDriverFactory(name -> null));
        registry.registerWrapper(new ValidationWrapper());
        return registry;
    }

    private static DeviceServer server;
    private static Path tokenFile;

    /** An in-process {@code ortho serve-device} on a loopback port, serving local-task; one per run. */
    static synchronized String remoteUri() throws IOException {
        if (server == null) {
            byte[] token = ("params-" + Long.toHexString(System.nanoTime())).getBytes(StandardCharsets.UTF_8);
            tokenFile = Files.createTempFile("ortho-params-token", ".txt");
            Files.write(tokenFile, token);
            tokenFile.toFile().deleteOnExit();
            DriverRegistry registry = registry();
            server = DeviceServer.start(() -> registry.createDevice("local-task://"),
                    ServerOptions.defaults(token).withListen(new InetSocketAddress("127.0.0.1", 0), false));
        }
        return "remote://127.0.0.1:" + server.address().getPort() + "?token_file=" + tokenFile;
    }

    static List<String> devices() throws IOException {
        return List.of("local-sync", "local-task", "validation+local-task", remoteUri());
    }

    /** The float32 payload of a one-array {@code .npy} file written by numpy (header, then data). */
    static float[] npyFloats(String name) throws IOException {
        byte[] file = Files.readAllBytes(ParameterModuleTest.resource(name));
        int headerLength = (file[8] & 0xFF) | (file[9] & 0xFF) << 8;
        MemorySegment data = MemorySegment.ofArray(file).asSlice(10 + headerLength);
        float[] values = new float[(int) (data.byteSize() / 4)];
        for (int i = 0; i < values.length; i++) {
            values[i] = data.get(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4L * i);
        }
        return values;
    }

    @ParameterizedTest
    @MethodSource("devices")
    void linearModelMatchesIreeRunModule(String deviceUri) throws IOException {
        float[] input = npyFloats("linear_input.npy");
        float[] expected = npyFloats("linear_output.npy");
        Instance instance = new Instance();
        try (Device device = registry().createDevice(deviceUri);
                ParameterIndex parameters = ParameterIndex.open(
                        List.of("model=" + ParameterModuleTest.resource("linear.irpa")))) {
            Module hal = HalModule.create(instance, List.of(device));
            Module io = ParameterModule.create(instance, parameters);
            Module program = BytecodeModule.create(instance,
                    BytecodeArchive.read(ParameterModuleTest.resource("linear.vmfb")), EXTENSIONS);
            try (Context context = Context.create(instance, hal, io, program);
                    BufferView view = BufferViewText.parse("1x4xf32=" + input[0] + " " + input[1] + " " + input[2] + " "
                            + input[3], device)) {
                VmList in = VmList.ofVariants(1);
                VmList out = VmList.ofVariants(1);
                try {
                    in.pushRefMove(HalRefs.wrap(view));
                    Invocation.invoke(context, context.resolveFunction("module.predict"), in, out);
                    BufferView result = HalRefs.bufferView(out.getRef(0));
                    float[] actual = new float[4];
                    result.buffer().read(0, MemorySegment.ofArray(actual));
                    assertArrayEquals(expected, actual, 1e-6f);
                } finally {
                    in.release();
                    out.release();
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync"})
    void withoutItsScopeTheInitializerFailsNamingIt(String deviceUri) {
        Instance instance = new Instance();
        try (Device device = registry().createDevice(deviceUri);
                ParameterIndex parameters = ParameterIndex.open(List.of("other=" + ParameterModuleTest.resource("linear.irpa")))) {
            Module hal = HalModule.create(instance, List.of(device));
            Module io = ParameterModule.create(instance, parameters);
            Module program = BytecodeModule.create(instance,
                    BytecodeArchive.read(ParameterModuleTest.resource("linear.vmfb")), EXTENSIONS);
            StatusException e = org.junit.jupiter.api.Assertions.assertThrows(StatusException.class,
                    () -> Context.create(instance, hal, io, program).close());
            assertEquals(StatusCode.NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains("no provider registered that handles scopes like 'model'"),
                    e.getMessage());
        }
    }
}
