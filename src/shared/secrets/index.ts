export { INSTALL_KEY_ENV, lazyInstallKey, loadInstallKey, type InstallKey } from './install-key.js';
export { isSealedSecret, openSecret, sealSecret } from './sealed.js';
