package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 section 5: {@code workers=0} was "not a positive number of milliseconds" and
 * {@code workers=3000000000} overflowed into "all 0 workers are busy" five seconds later. Both
 * are refused at once (before any worker starts) naming what the parameter counts and its range.
 */
class Issue15ShmParametersTest {
    private static StatusException refused(String params) {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            StatusException e = assertThrows(StatusException.class, () -> driver.createDevice(
                    DeviceUri.parse("remote://shm?mode=thread&supplier=" + LocalSyncSupplier.class.getName() + "&"
                            + params)).close());
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.toString());
            return e;
        }
    }

    @Test
    void zeroWorkersIsNotAboutMilliseconds() {
        String message = refused("workers=0").getMessage();
        assertTrue(message.contains("workers='0' is not a number of workers in [1, 64]"), message);
    }

    @Test
    void billionsOfWorkersAreRefusedWithoutOverflow() {
        String message = refused("workers=3000000000").getMessage();
        assertTrue(message.contains("workers='3000000000' is not a number of workers in [1, 64]"), message);
    }

    @Test
    void mailboxBytesHaveAnUpperBound() {
        String message = refused("mailbox_bytes=99999999999").getMessage();
        assertTrue(message.contains("is not a number of bytes in [1, 1073741824]"), message);
    }
}
