import { defineConfig } from 'tsup';
import { appBundle } from '../../infra/docker/tsup.config.base';

export default defineConfig(appBundle());
