package dev.ortho.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.internal.osgi.ComponentTestAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class OsgiComponentTest {
    @Test
    void componentBuildsConfiguredExecutorAndStatsCommandRendersIt() throws Exception {
        Executor e = ComponentTestAccess.activate(2, "3", 0, "priority");
        try {
            assertEquals(2, e.workerCount());
            assertEquals(ScanPolicy.PRIORITY, e.scanPolicy());
            assertEquals(StatusCode.PERMISSION_DENIED, assertThrows(StatusException.class, e::close).code());
            String table = ComponentTestAccess.stats(e);
            assertTrue(table.contains("policy=PRIORITY"), table);
        } finally {
            ComponentTestAccess.deactivate(e);
        }
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> ComponentTestAccess.activate(1, "", 0, "fifo")).code());
    }
}
