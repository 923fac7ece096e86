import { describeRandomizedSigkill } from './support/describeRandomizedSigkill';

describeRandomizedSigkill('postgres');
