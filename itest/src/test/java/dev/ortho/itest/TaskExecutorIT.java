package dev.ortho.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * The task executor published by the task.scheduler bundle runs work inside the framework, and
 * {@code task:stats} reports it through the real Gogo command processor.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class TaskExecutorIT {

    @Inject
    private Executor executor;

    @Inject
    private CommandProcessor shell;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void executorServiceRunsAChainOfProcesses() throws Exception {
        int links = 100;
        AtomicInteger order = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        Process previous = null;
        Process first = null;
        for (int i = 0; i < links; i++) {
            int index = i;
            Process.Builder builder = executor.newProcess("link-" + i, (p, w, r) -> {
                if (order.getAndIncrement() != index) {
                    outOfOrder.incrementAndGet();
                }
                r.complete();
            });
            if (i == links - 1) {
                builder.onComplete((p, error) -> done.countDown());
            }
            Process process = builder.build();
            if (previous != null) {
                previous.addDependent(process);
            } else {
                first = process;
            }
            previous = process;
        }
        first.schedule();
        assertTrue("chain did not finish", done.await(30, TimeUnit.SECONDS));
        assertEquals(links, order.get());
        assertEquals(0, outOfOrder.get());
    }

    @Test
    public void taskStatsReportsTheWorkers() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CommandSession session = shell.createSession(InputStream.nullInputStream(), out, out);
        try {
            Object result = session.execute("task:stats");
            out.println(session.format(result, Converter.INSPECT));
        } finally {
            session.close();
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text, text.startsWith("executor "));
        for (int worker = 0; worker < executor.workerCount(); worker++) {
            assertTrue(text, text.contains("\n" + worker + " "));
        }
    }
}
