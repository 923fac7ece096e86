import { loadOptionalPeer } from '../ground/optionalPeer';

// Loaded before any file of waymark/nest imports them, so that an application without them
// is told which to install (a ConfigurationError) rather than where Node looked.
loadOptionalPeer('waymark/nest', '@nestjs/common');
loadOptionalPeer('waymark/nest', '@nestjs/core');
