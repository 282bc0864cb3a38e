package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.trace.ImportCallEvent;
import dev.ortho.vm.trace.InvocationEvent;
import dev.ortho.vm.trace.WaitEvent;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Recording;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Under a JFR recording, host invocations and bytecode calls through imports emit
 * {@link InvocationEvent} and {@link ImportCallEvent} (failed invocations marked), each import
 * call inside its invocation's time span.
 */
class VmTraceEventsTest {
    @TempDir
    Path dir;

    @Test
    void invocationsAndImportCallsAreRecorded() throws Exception {
        Instance instance = new Instance();
        Assembler asm = new Assembler(VmasmFixture.EXTENSIONS);
        BytecodeModule lib = VmasmFixture.create(instance, asm.assemble(InterpreterModulesTest.LIB, "lib.vmasm"),
                VmasmFixture.EXTENSIONS);
        BytecodeModule app = VmasmFixture.create(instance, asm.assemble(InterpreterModulesTest.APP, "app.vmasm"),
                VmasmFixture.EXTENSIONS);
        Path jfr = dir.resolve("vm.jfr");
        try (Recording recording = new Recording(); Context context = Context.create(instance, lib, app)) {
            recording.enable(InvocationEvent.NAME).withoutThreshold();
            recording.enable(ImportCallEvent.NAME).withoutThreshold();
            recording.start();
            VmList in = VmList.ofVariants(1);
            in.pushI32(5);
            VmList out = VmList.ofVariants(1);
            Invocation.invoke(context, context.resolveFunction("app.run"), in, out);
            assertEquals(210, out.getI32(0));
            assertThrows(StatusException.class,
                    () -> Invocation.invoke(context, context.resolveFunction("app.propagate"), null, null));
            recording.stop();
            recording.dump(jfr);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        List<RecordedEvent> invocations = events.stream()
                .filter(e -> e.getEventType().getName().equals(InvocationEvent.NAME))
                .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime())).toList();
        assertEquals(2, invocations.size(), "invocations: " + invocations);
        RecordedEvent run = invocations.get(0);
        assertEquals("app", run.getString("module"));
        assertEquals("run", run.getString("function"));
        assertEquals(false, run.getBoolean("failed"));
        assertEquals("propagate", invocations.get(1).getString("function"));
        assertEquals(true, invocations.get(1).getBoolean("failed"));

        List<RecordedEvent> imports = events.stream()
                .filter(e -> e.getEventType().getName().equals(ImportCallEvent.NAME)).toList();
        long slowAdds = imports.stream().filter(e -> e.getString("function").equals("slow_add")).count();
        assertEquals(2, slowAdds, "imports: " + imports);
        for (RecordedEvent e : imports) {
            assertEquals("app", e.getString("caller"));
            assertEquals("lib", e.getString("module"));
            if (e.getString("function").equals("slow_add")) {
                assertTrue(!e.getStartTime().isBefore(run.getStartTime()) && !e.getEndTime().isAfter(run.getEndTime()),
                        "import " + e + " outside " + run);
            }
        }
        // a failing callee still ends its event (regression: only returning calls were recorded)
        assertTrue(imports.stream().anyMatch(e -> e.getString("function").equals("boom") && e.getBoolean("failed")),
                "imports: " + imports);
    }

    /**
     * A recording with JFR's own settings (a service's continuous recording) does not name Ortho's
     * events: it must not record one event per import call (that made small calls ~70 % slower
     * and wrote ~12 MB/s); invocations and VM waits are recorded from 20 ms, as JFR records parks.
     */
    @ParameterizedTest
    @ValueSource(strings = {"default", "profile"})
    void aRecordingWithJfrsOwnSettingsRecordsNoImportCalls(String settings) throws Exception {
        Instance instance = new Instance();
        Assembler asm = new Assembler(VmasmFixture.EXTENSIONS);
        BytecodeModule lib = BytecodeModule.create(instance, asm.assemble(InterpreterModulesTest.LIB, "lib.vmasm"),
                VmasmFixture.EXTENSIONS, VmasmFixture.OPTIONS);
        BytecodeModule app = BytecodeModule.create(instance, asm.assemble(InterpreterModulesTest.APP, "app.vmasm"),
                VmasmFixture.EXTENSIONS, VmasmFixture.OPTIONS);
        Path jfr = dir.resolve("default.jfr");
        try (Recording recording = new Recording(Configuration.getConfiguration(settings));
             Context context = Context.create(instance, lib, app)) {
            recording.start();
            assertEquals(false, ImportCallEvent.enabled(), "import calls under " + settings);
            assertEquals(true, InvocationEvent.enabled(), "invocations under " + settings);
            assertEquals("20 ms", defaultOf(InvocationEvent.class, "threshold"));
            assertEquals("20 ms", defaultOf(WaitEvent.class, "threshold"));
            VmList in = VmList.ofVariants(1);
            in.pushI32(5);
            VmList out = VmList.ofVariants(1);
            Invocation.invoke(context, context.resolveFunction("app.run"), in, out);
            assertEquals(210, out.getI32(0));
            recording.stop();
            recording.dump(jfr);
        }
        List<RecordedEvent> imports = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals(ImportCallEvent.NAME)).toList();
        assertEquals(List.of(), imports);
    }

    private static String defaultOf(Class<? extends Event> type, String setting) {
        return EventType.getEventType(type).getSettingDescriptors().stream()
                .filter(d -> d.getName().equals(setting)).map(SettingDescriptor::getDefaultValue)
                .findFirst().orElse("(no " + setting + " setting)");
    }
}
