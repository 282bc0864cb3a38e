package dev.ortho.itest.sample;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.osgi.service.component.annotations.Component;

/** Registers driver {@code sample}: one device, {@code sample://0}. */
@Component(property = {
    "hal.driver.name=" + SampleDriverFactory.NAME,
    "hal.driver.description=" + SampleDriverFactory.DESCRIPTION})
public final class SampleDriverFactory implements DriverFactory {
    static final String NAME = "sample";
    static final String DESCRIPTION = "Sample driver installed at runtime (integration tests)";
    private static final DriverInfo INFO = new DriverInfo(NAME, DESCRIPTION);

    @Override
    public List<DriverInfo> enumerate() {
        return List.of(INFO);
    }

    @Override
    public Driver createDriver(String driverName) {
        if (!NAME.equals(driverName)) {
            throw new StatusException(StatusCode.NOT_FOUND, "factory '" + NAME
                    + "' has no driver '" + driverName + "'");
        }
        return new SampleDriver();
    }

    private static final class SampleDriver implements Driver {
        private final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public DriverInfo info() {
            return INFO;
        }

        @Override
        public List<DeviceInfo> queryAvailableDevices() {
            if (closed.get()) {
                throw new StatusException(StatusCode.UNAVAILABLE, "driver '" + NAME + "' is closed");
            }
            return List.of(new DeviceInfo(0, "0", "sample device 0"));
        }

        /** The sample driver only lists a device; creating it is not something it can do. */
        @Override
        public Device createDevice(DeviceUri uri) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "driver '" + NAME
                    + "' lists devices but cannot create them (it is an installation test fixture)");
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }
}
