import { describeRandomizedSigkill } from './support/describeRandomizedSigkill';

describeRandomizedSigkill('mariadb');
