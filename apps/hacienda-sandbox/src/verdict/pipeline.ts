// The full verdict pipeline, in Hacienda's order (REFERENCE §9): document shape, XSD, signature,
// certificate, clave, code tables (and the codes only some kinds may carry) and the fields their codes
// require, references, CABYS, registry data, arithmetic.
import {
  arithmeticCheck,
  cabysCheck,
  certificateCheck,
  claveCheck,
  codesCheck,
  conditionalFieldsCheck,
  kindCodesCheck,
  referencesCheck,
  registryCheck,
  structureCheck,
  type VerdictCheck,
  xsdCheck,
} from './checks';
import { signatureCheck } from './engine-checks';

export const VERDICT_CHECKS: readonly VerdictCheck[] = [
  structureCheck,
  xsdCheck,
  signatureCheck,
  certificateCheck,
  claveCheck,
  codesCheck,
  kindCodesCheck,
  conditionalFieldsCheck,
  referencesCheck,
  cabysCheck,
  registryCheck,
  arithmeticCheck,
];
