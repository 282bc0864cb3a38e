/** Wait gating and ordered execution shared by the client and the server. */
package dev.ortho.hal.remote.internal.sync;
