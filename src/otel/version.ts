// plannav's version, as the default tracer's instrumentation version. A test checks that it is the
// one package.json gives, so a release that forgets to change it fails.

/** The version of plannav in package.json. */
export const plannavVersion = '0.1.0';
