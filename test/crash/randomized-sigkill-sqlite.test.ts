import { describeRandomizedSigkill } from './support/describeRandomizedSigkill';

describeRandomizedSigkill('sqlite-file');
