// @cr/mail-catcher: a local SMTP server that keeps what it receives and shows it on a web page (docs/delivery.md).
export * from './catcher';
export * from './web';
export * from './start';
