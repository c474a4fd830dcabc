// The package's optional peer dependencies (package.json peerDependenciesMeta): loaded only when a
// setting asks for their feature, so a host that never uses it never installs them. Missing when
// asked for: an error naming the package to install, instead of Node's bare "cannot find package".

/** `load()` (an `import()` of `name`); when `name` is not installed, an error naming it and `feature`. */
export async function importOptionalPeer<T>(
  name: string,
  feature: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    if (code === 'ERR_MODULE_NOT_FOUND' && message?.includes(`'${name}'`)) {
      throw new Error(`${feature} needs the package ${name}, which is not installed: npm install ${name}`);
    }
    throw err;
  }
}
