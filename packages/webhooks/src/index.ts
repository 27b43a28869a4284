export * from './signature';
export * from './target-policy';
export * from './deliver';
export * from './schedule';
