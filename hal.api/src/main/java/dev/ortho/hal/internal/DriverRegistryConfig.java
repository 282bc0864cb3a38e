package dev.ortho.hal.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the driver registry service (ConfigAdmin PID {@code dev.ortho.hal.registry}). */
@ObjectClassDefinition(name = "Ortho HAL driver registry",
        description = "Creates HAL devices by URI from the registered driver factories and device wrappers")
@interface DriverRegistryConfig {
    @AttributeDefinition(name = "Device wrappers",
            description = "Wrappers applied to every device the registry creates, outermost first "
                    + "(e.g. 'validation'); empty = none. A URI naming the wrapper itself is not wrapped twice.")
    String[] deviceWrappers() default {};
}
