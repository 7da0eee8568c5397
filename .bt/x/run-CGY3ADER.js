import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  reconcile,
  reconcileDeps
} from "./chunk-VSAQ7CMK.js";
import {
  Verifier,
  executeAndRecord,
  registerJobs
} from "./chunk-RWY4LPCE.js";
import {
  sameVisibleDigits,
  verifyDisagreements
} from "./chunk-2ULZMUG3.js";
import {
  Semaphore
} from "./chunk-INE77FG5.js";
import {
  createAnalyticsClient,
  createResellerClient
} from "./chunk-67GFVRO3.js";
import "./chunk-NFUL76TY.js";
import {
  systemClock
} from "./chunk-Q5CGDVWJ.js";
import "./chunk-JUEWK5GU.js";
import {
  migrate,
  pendingMigrations
} from "./chunk-LFLOYXGR.js";
import "./chunk-LO6SG345.js";
import {
  atExpression,
  dueFire,
  fireJob,
  firesBefore,
  ingestIntake,
  loadCatalogue
} from "./chunk-IVUYQY7E.js";
import "./chunk-VGVPC3PQ.js";
import {
  redactSecretForms
} from "./chunk-GJL2AOOX.js";
import {
  createTask
} from "./chunk-76UW4DC7.js";
import "./chunk-Y6YROLBT.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-5653Z76Z.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import {
  capText,
  otherPurchaseWithReference,
  settleInDoubtByProof,
  sweepDeadSubmitting
} from "./chunk-EBZNZK5S.js";
import {
  PURCHASE_STATES,
  openDatabase,
  rows
} from "./chunk-BH4POYA2.js";
import {
  budgetDay
} from "./chunk-TEJ6QTWI.js";
import {
  formatDuration
} from "./chunk-4DGXMM26.js";
import {
  ExitCode,
  TopsyncError
} from "./chunk-3SYTADOT.js";
import {
  isMoneyText,
  parseMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";
import "./chunk-SZJK6VY7.js";
import "./chunk-R5RR2GLU.js";
import {
  __commonJS,
  __require,
  __toESM
} from "./chunk-V4RWK56N.js";

// node_modules/prom-client/lib/util.js
var require_util = __commonJS({
  "node_modules/prom-client/lib/util.js"(exports) {
    "use strict";
    exports.getValueAsString = function getValueString(value) {
      if (Number.isNaN(value)) {
        return "Nan";
      } else if (!Number.isFinite(value)) {
        if (value < 0) {
          return "-Inf";
        } else {
          return "+Inf";
        }
      } else {
        return `${value}`;
      }
    };
    exports.removeLabels = function removeLabels(hashMap, labels, sortedLabelNames) {
      const hash = hashObject(labels, sortedLabelNames);
      delete hashMap[hash];
    };
    exports.setValue = function setValue(hashMap, value, labels) {
      const hash = hashObject(labels);
      hashMap[hash] = {
        value: typeof value === "number" ? value : 0,
        labels: labels || {}
      };
      return hashMap;
    };
    exports.setValueDelta = function setValueDelta(hashMap, deltaValue, labels, hash = "") {
      const value = typeof deltaValue === "number" ? deltaValue : 0;
      if (hashMap[hash]) {
        hashMap[hash].value += value;
      } else {
        hashMap[hash] = { value, labels };
      }
      return hashMap;
    };
    exports.getLabels = function(labelNames, args) {
      if (typeof args[0] === "object") {
        return args[0];
      }
      if (labelNames.length !== args.length) {
        throw new Error(
          `Invalid number of arguments (${args.length}): "${args.join(
            ", "
          )}" for label names (${labelNames.length}): "${labelNames.join(", ")}".`
        );
      }
      const acc = {};
      for (let i = 0; i < labelNames.length; i++) {
        acc[labelNames[i]] = args[i];
      }
      return acc;
    };
    function fastHashObject(keys, labels) {
      if (keys.length === 0) {
        return "";
      }
      let hash = "";
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const value = labels[key];
        if (value === void 0) continue;
        hash += `${key}:${value},`;
      }
      return hash;
    }
    function hashObject(labels, labelNames) {
      if (labelNames) {
        return fastHashObject(labelNames, labels);
      }
      const keys = Object.keys(labels);
      if (keys.length > 1) {
        keys.sort();
      }
      return fastHashObject(keys, labels);
    }
    exports.hashObject = hashObject;
    exports.isObject = function isObject(obj) {
      return obj !== null && typeof obj === "object";
    };
    exports.nowTimestamp = function nowTimestamp() {
      return Date.now() / 1e3;
    };
    var Grouper = class extends Map {
      /**
       * Adds the `value` to the `key`'s array of values.
       * @param {*} key Key to set.
       * @param {*} value Value to add to `key`'s array.
       * @returns {undefined} undefined.
       */
      add(key, value) {
        if (this.has(key)) {
          this.get(key).push(value);
        } else {
          this.set(key, [value]);
        }
      }
    };
    exports.Grouper = Grouper;
  }
});

// node_modules/prom-client/lib/registry.js
var require_registry = __commonJS({
  "node_modules/prom-client/lib/registry.js"(exports, module) {
    "use strict";
    var { getValueAsString } = require_util();
    var Registry2 = class _Registry {
      static get PROMETHEUS_CONTENT_TYPE() {
        return "text/plain; version=0.0.4; charset=utf-8";
      }
      static get OPENMETRICS_CONTENT_TYPE() {
        return "application/openmetrics-text; version=1.0.0; charset=utf-8";
      }
      constructor(regContentType = _Registry.PROMETHEUS_CONTENT_TYPE) {
        this._metrics = {};
        this._collectors = [];
        this._defaultLabels = {};
        if (regContentType !== _Registry.PROMETHEUS_CONTENT_TYPE && regContentType !== _Registry.OPENMETRICS_CONTENT_TYPE) {
          throw new TypeError(`Content type ${regContentType} is unsupported`);
        }
        this._contentType = regContentType;
      }
      getMetricsAsArray() {
        return Object.values(this._metrics);
      }
      async getMetricsAsString(metrics) {
        const metric = typeof metrics.getForPromString === "function" ? await metrics.getForPromString() : await metrics.get();
        const name = escapeString(metric.name);
        const help = `# HELP ${name} ${escapeString(metric.help)}`;
        const type = `# TYPE ${name} ${metric.type}`;
        const values = [help, type];
        const defaultLabels = Object.keys(this._defaultLabels).length > 0 ? this._defaultLabels : null;
        const isOpenMetrics = this.contentType === _Registry.OPENMETRICS_CONTENT_TYPE;
        for (const val of metric.values || []) {
          let { metricName = name, labels = {} } = val;
          const { sharedLabels = {} } = val;
          if (isOpenMetrics && metric.type === "counter") {
            metricName = `${metricName}_total`;
          }
          if (defaultLabels) {
            labels = { ...labels, ...defaultLabels, ...labels };
          }
          const formattedLabels = formatLabels(labels, sharedLabels);
          const flattenedShared = flattenSharedLabels(sharedLabels);
          const labelParts = [...formattedLabels, flattenedShared].filter(Boolean);
          const labelsString = labelParts.length ? `{${labelParts.join(",")}}` : "";
          let fullMetricLine = `${metricName}${labelsString} ${getValueAsString(
            val.value
          )}`;
          const { exemplar } = val;
          if (exemplar && isOpenMetrics) {
            const formattedExemplars = formatLabels(exemplar.labelSet);
            fullMetricLine += ` # {${formattedExemplars.join(
              ","
            )}} ${getValueAsString(exemplar.value)} ${exemplar.timestamp}`;
          }
          values.push(fullMetricLine);
        }
        return values.join("\n");
      }
      async metrics() {
        const isOpenMetrics = this.contentType === _Registry.OPENMETRICS_CONTENT_TYPE;
        const promises = this.getMetricsAsArray().map((metric) => {
          if (isOpenMetrics && metric.type === "counter") {
            metric.name = standardizeCounterName(metric.name);
          }
          return this.getMetricsAsString(metric);
        });
        const resolves = await Promise.all(promises);
        return isOpenMetrics ? `${resolves.join("\n")}
# EOF
` : `${resolves.join("\n\n")}
`;
      }
      registerMetric(metric) {
        if (this._metrics[metric.name] && this._metrics[metric.name] !== metric) {
          throw new Error(
            `A metric with the name ${metric.name} has already been registered.`
          );
        }
        this._metrics[metric.name] = metric;
      }
      clear() {
        this._metrics = {};
        this._defaultLabels = {};
      }
      async getMetricsAsJSON() {
        const metrics = [];
        const defaultLabelNames = Object.keys(this._defaultLabels);
        const promises = [];
        for (const metric of this.getMetricsAsArray()) {
          promises.push(metric.get());
        }
        const resolves = await Promise.all(promises);
        for (const item of resolves) {
          if (item.values && defaultLabelNames.length > 0) {
            for (const val of item.values) {
              val.labels = Object.assign({}, val.labels);
              for (const labelName of defaultLabelNames) {
                val.labels[labelName] = val.labels[labelName] || this._defaultLabels[labelName];
              }
            }
          }
          metrics.push(item);
        }
        return metrics;
      }
      removeSingleMetric(name) {
        delete this._metrics[name];
      }
      getSingleMetricAsString(name) {
        return this.getMetricsAsString(this._metrics[name]);
      }
      getSingleMetric(name) {
        return this._metrics[name];
      }
      setDefaultLabels(labels) {
        this._defaultLabels = labels;
      }
      resetMetrics() {
        for (const metric in this._metrics) {
          this._metrics[metric].reset();
        }
      }
      get contentType() {
        return this._contentType;
      }
      setContentType(metricsContentType) {
        if (metricsContentType === _Registry.OPENMETRICS_CONTENT_TYPE || metricsContentType === _Registry.PROMETHEUS_CONTENT_TYPE) {
          this._contentType = metricsContentType;
        } else {
          throw new Error(`Content type ${metricsContentType} is unsupported`);
        }
      }
      static merge(registers) {
        const regType = registers[0].contentType;
        for (const reg of registers) {
          if (reg.contentType !== regType) {
            throw new Error(
              "Registers can only be merged if they have the same content type"
            );
          }
        }
        const mergedRegistry = new _Registry(regType);
        const metricsToMerge = registers.reduce(
          (acc, reg) => acc.concat(reg.getMetricsAsArray()),
          []
        );
        metricsToMerge.forEach(mergedRegistry.registerMetric, mergedRegistry);
        return mergedRegistry;
      }
    };
    function formatLabels(labels, exclude) {
      const { hasOwnProperty } = Object.prototype;
      const formatted = [];
      for (const [name, value] of Object.entries(labels)) {
        if (!exclude || !hasOwnProperty.call(exclude, name)) {
          formatted.push(`${name}="${escapeLabelValue(value)}"`);
        }
      }
      return formatted;
    }
    var sharedLabelCache = /* @__PURE__ */ new WeakMap();
    function flattenSharedLabels(labels) {
      const cached = sharedLabelCache.get(labels);
      if (cached) {
        return cached;
      }
      const formattedLabels = formatLabels(labels);
      const flattened = formattedLabels.join(",");
      sharedLabelCache.set(labels, flattened);
      return flattened;
    }
    function escapeLabelValue(str) {
      if (typeof str !== "string") {
        return str;
      }
      return escapeString(str).replace(/"/g, '\\"');
    }
    function escapeString(str) {
      return str.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    }
    function standardizeCounterName(name) {
      return name.replace(/_total$/, "");
    }
    module.exports = Registry2;
    module.exports.globalRegistry = new Registry2();
  }
});

// node_modules/prom-client/lib/validation.js
var require_validation = __commonJS({
  "node_modules/prom-client/lib/validation.js"(exports) {
    "use strict";
    var util = __require("util");
    var metricRegexp = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
    var labelRegexp = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
    exports.validateMetricName = function(name) {
      return metricRegexp.test(name);
    };
    exports.validateLabelName = function(names = []) {
      return names.every((name) => labelRegexp.test(name));
    };
    exports.validateLabel = function validateLabel(savedLabels, labels) {
      for (const label in labels) {
        if (!savedLabels.includes(label)) {
          throw new Error(
            `Added label "${label}" is not included in initial labelset: ${util.inspect(
              savedLabels
            )}`
          );
        }
      }
    };
  }
});

// node_modules/prom-client/lib/metric.js
var require_metric = __commonJS({
  "node_modules/prom-client/lib/metric.js"(exports, module) {
    "use strict";
    var Registry2 = require_registry();
    var { isObject } = require_util();
    var { validateMetricName, validateLabelName } = require_validation();
    var Metric = class {
      constructor(config, defaults = {}) {
        if (!isObject(config)) {
          throw new TypeError("constructor expected a config object");
        }
        Object.assign(
          this,
          {
            labelNames: [],
            registers: [Registry2.globalRegistry],
            aggregator: "sum",
            enableExemplars: false
          },
          defaults,
          config
        );
        if (!this.registers) {
          this.registers = [Registry2.globalRegistry];
        }
        if (!this.help) {
          throw new Error("Missing mandatory help parameter");
        }
        if (!this.name) {
          throw new Error("Missing mandatory name parameter");
        }
        if (!validateMetricName(this.name)) {
          throw new Error("Invalid metric name");
        }
        if (!validateLabelName(this.labelNames)) {
          throw new Error("Invalid label name");
        }
        if (this.collect && typeof this.collect !== "function") {
          throw new Error('Optional "collect" parameter must be a function');
        }
        if (this.labelNames) {
          this.sortedLabelNames = [...this.labelNames].sort();
        } else {
          this.sortedLabelNames = [];
        }
        this.reset();
        for (const register of this.registers) {
          if (this.enableExemplars && register.contentType === Registry2.PROMETHEUS_CONTENT_TYPE) {
            throw new TypeError(
              "Exemplars are supported only on OpenMetrics registries"
            );
          }
          register.registerMetric(this);
        }
      }
      reset() {
      }
    };
    module.exports = { Metric };
  }
});

// node_modules/prom-client/lib/exemplar.js
var require_exemplar = __commonJS({
  "node_modules/prom-client/lib/exemplar.js"(exports, module) {
    "use strict";
    var Exemplar = class {
      constructor(labelSet = {}, value = null) {
        this.labelSet = labelSet;
        this.value = value;
      }
      /**
       * Validation for the label set format.
       * https://github.com/OpenObservability/OpenMetrics/blob/d99b705f611b75fec8f450b05e344e02eea6921d/specification/OpenMetrics.md#exemplars
       *
       * @param {object} labelSet - Exemplar labels.
       * @throws {RangeError}
       * @return {void}
       */
      validateExemplarLabelSet(labelSet) {
        let res = "";
        for (const [labelName, labelValue] of Object.entries(labelSet)) {
          res += `${labelName}${labelValue}`;
        }
        if (res.length > 128) {
          throw new RangeError(
            "Label set size must be smaller than 128 UTF-8 chars"
          );
        }
      }
    };
    module.exports = Exemplar;
  }
});

// node_modules/prom-client/lib/counter.js
var require_counter = __commonJS({
  "node_modules/prom-client/lib/counter.js"(exports, module) {
    "use strict";
    var util = __require("util");
    var {
      hashObject,
      isObject,
      getLabels,
      removeLabels,
      nowTimestamp
    } = require_util();
    var { validateLabel } = require_validation();
    var { Metric } = require_metric();
    var Exemplar = require_exemplar();
    var Counter2 = class extends Metric {
      constructor(config) {
        super(config);
        this.type = "counter";
        this.defaultLabels = {};
        this.defaultValue = 1;
        this.defaultExemplarLabelSet = {};
        if (config.enableExemplars) {
          this.enableExemplars = true;
          this.inc = this.incWithExemplar;
        } else {
          this.inc = this.incWithoutExemplar;
        }
      }
      /**
       * Increment counter
       * @param {object} labels - What label you want to be incremented
       * @param {Number} value - Value to increment, if omitted increment with 1
       * @returns {object} results - object with information about the inc operation
       * @returns {string} results.labelHash - hash representation of the labels
       */
      incWithoutExemplar(labels, value) {
        let hash = "";
        if (isObject(labels)) {
          hash = hashObject(labels, this.sortedLabelNames);
          validateLabel(this.labelNames, labels);
        } else {
          value = labels;
          labels = {};
        }
        if (value && !Number.isFinite(value)) {
          throw new TypeError(`Value is not a valid number: ${util.format(value)}`);
        }
        if (value < 0) {
          throw new Error("It is not possible to decrease a counter");
        }
        if (value === null || value === void 0) value = 1;
        setValue(this.hashMap, value, labels, hash);
        return { labelHash: hash };
      }
      /**
       * Increment counter with exemplar, same as inc but accepts labels for an
       * exemplar.
       * If no label is provided the current exemplar labels are kept unchanged
       * (defaults to empty set).
       *
       * @param {object} incOpts - Object with options about what metric to increase
       * @param {object} incOpts.labels - What label you want to be incremented,
       *                                  defaults to null (metric with no labels)
       * @param {Number} incOpts.value - Value to increment, defaults to 1
       * @param {object} incOpts.exemplarLabels - Key-value  labels for the
       *                                          exemplar, defaults to empty set {}
       * @returns {void}
       */
      incWithExemplar({
        labels = this.defaultLabels,
        value = this.defaultValue,
        exemplarLabels = this.defaultExemplarLabelSet
      } = {}) {
        const res = this.incWithoutExemplar(labels, value);
        this.updateExemplar(exemplarLabels, value, res.labelHash);
      }
      updateExemplar(exemplarLabels, value, hash) {
        if (exemplarLabels === this.defaultExemplarLabelSet) return;
        if (!isObject(this.hashMap[hash].exemplar)) {
          this.hashMap[hash].exemplar = new Exemplar();
        }
        this.hashMap[hash].exemplar.validateExemplarLabelSet(exemplarLabels);
        this.hashMap[hash].exemplar.labelSet = exemplarLabels;
        this.hashMap[hash].exemplar.value = value ? value : 1;
        this.hashMap[hash].exemplar.timestamp = nowTimestamp();
      }
      /**
       * Reset counter
       * @returns {void}
       */
      reset() {
        this.hashMap = {};
        if (this.labelNames.length === 0) {
          setValue(this.hashMap, 0);
        }
      }
      async get() {
        if (this.collect) {
          const v = this.collect();
          if (v instanceof Promise) await v;
        }
        return {
          help: this.help,
          name: this.name,
          type: this.type,
          values: Object.values(this.hashMap),
          aggregator: this.aggregator
        };
      }
      labels(...args) {
        const labels = getLabels(this.labelNames, args) || {};
        return {
          inc: this.inc.bind(this, labels)
        };
      }
      remove(...args) {
        const labels = getLabels(this.labelNames, args) || {};
        validateLabel(this.labelNames, labels);
        return removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
      }
    };
    function setValue(hashMap, value, labels = {}, hash = "") {
      if (hashMap[hash]) {
        hashMap[hash].value += value;
      } else {
        hashMap[hash] = { value, labels };
      }
      return hashMap;
    }
    module.exports = Counter2;
  }
});

// node_modules/prom-client/lib/gauge.js
var require_gauge = __commonJS({
  "node_modules/prom-client/lib/gauge.js"(exports, module) {
    "use strict";
    var util = __require("util");
    var {
      setValue,
      setValueDelta,
      getLabels,
      hashObject,
      isObject,
      removeLabels
    } = require_util();
    var { validateLabel } = require_validation();
    var { Metric } = require_metric();
    var Gauge2 = class extends Metric {
      constructor(config) {
        super(config);
        this.type = "gauge";
      }
      /**
       * Set a gauge to a value
       * @param {object} labels - Object with labels and their values
       * @param {Number} value - Value to set the gauge to, must be positive
       * @returns {void}
       */
      set(labels, value) {
        value = getValueArg(labels, value);
        labels = getLabelArg(labels);
        set(this, labels, value);
      }
      /**
       * Reset gauge
       * @returns {void}
       */
      reset() {
        this.hashMap = {};
        if (this.labelNames.length === 0) {
          setValue(this.hashMap, 0, {});
        }
      }
      /**
       * Increment a gauge value
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @param {Number} value - Value to increment - if omitted, increment with 1
       * @returns {void}
       */
      inc(labels, value) {
        value = getValueArg(labels, value);
        labels = getLabelArg(labels);
        if (value === void 0) value = 1;
        setDelta(this, labels, value);
      }
      /**
       * Decrement a gauge value
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @param {Number} value - Value to decrement - if omitted, decrement with 1
       * @returns {void}
       */
      dec(labels, value) {
        value = getValueArg(labels, value);
        labels = getLabelArg(labels);
        if (value === void 0) value = 1;
        setDelta(this, labels, -value);
      }
      /**
       * Set the gauge to current unix epoch
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @returns {void}
       */
      setToCurrentTime(labels) {
        const now = Date.now() / 1e3;
        if (labels === void 0) {
          this.set(now);
        } else {
          this.set(labels, now);
        }
      }
      /**
       * Start a timer
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @returns {function} - Invoke this function to set the duration in seconds since you started the timer.
       * @example
       * var done = gauge.startTimer();
       * makeXHRRequest(function(err, response) {
       *	done(); //Duration of the request will be saved
       * });
       */
      startTimer(labels) {
        const start = process.hrtime();
        return (endLabels) => {
          const delta = process.hrtime(start);
          const value = delta[0] + delta[1] / 1e9;
          this.set(Object.assign({}, labels, endLabels), value);
          return value;
        };
      }
      async get() {
        if (this.collect) {
          const v = this.collect();
          if (v instanceof Promise) await v;
        }
        return {
          help: this.help,
          name: this.name,
          type: this.type,
          values: Object.values(this.hashMap),
          aggregator: this.aggregator
        };
      }
      _getValue(labels) {
        const hash = hashObject(labels || {}, this.sortedLabelNames);
        return this.hashMap[hash] ? this.hashMap[hash].value : 0;
      }
      labels(...args) {
        const labels = getLabels(this.labelNames, args);
        validateLabel(this.labelNames, labels);
        return {
          inc: this.inc.bind(this, labels),
          dec: this.dec.bind(this, labels),
          set: this.set.bind(this, labels),
          setToCurrentTime: this.setToCurrentTime.bind(this, labels),
          startTimer: this.startTimer.bind(this, labels)
        };
      }
      remove(...args) {
        const labels = getLabels(this.labelNames, args);
        validateLabel(this.labelNames, labels);
        removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
      }
    };
    function set(gauge, labels, value) {
      if (typeof value !== "number") {
        throw new TypeError(`Value is not a valid number: ${util.format(value)}`);
      }
      validateLabel(gauge.labelNames, labels);
      setValue(gauge.hashMap, value, labels);
    }
    function setDelta(gauge, labels, delta) {
      if (typeof delta !== "number") {
        throw new TypeError(`Delta is not a valid number: ${util.format(delta)}`);
      }
      validateLabel(gauge.labelNames, labels);
      const hash = hashObject(labels, gauge.sortedLabelNames);
      setValueDelta(gauge.hashMap, delta, labels, hash);
    }
    function getLabelArg(labels) {
      return isObject(labels) ? labels : {};
    }
    function getValueArg(labels, value) {
      return isObject(labels) ? value : labels;
    }
    module.exports = Gauge2;
  }
});

// node_modules/prom-client/lib/histogram.js
var require_histogram = __commonJS({
  "node_modules/prom-client/lib/histogram.js"(exports, module) {
    "use strict";
    var util = __require("util");
    var {
      getLabels,
      hashObject,
      isObject,
      removeLabels,
      nowTimestamp
    } = require_util();
    var { validateLabel } = require_validation();
    var { Metric } = require_metric();
    var Exemplar = require_exemplar();
    var Histogram2 = class extends Metric {
      constructor(config) {
        super(config, {
          buckets: [5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
        });
        this.type = "histogram";
        this.defaultLabels = {};
        this.defaultExemplarLabelSet = {};
        this.enableExemplars = false;
        for (const label of this.labelNames) {
          if (label === "le") {
            throw new Error("le is a reserved label keyword");
          }
        }
        this.upperBounds = this.buckets;
        this.bucketValues = this.upperBounds.reduce((acc, upperBound) => {
          acc[upperBound] = 0;
          return acc;
        }, {});
        if (config.enableExemplars) {
          this.enableExemplars = true;
          this.bucketExemplars = this.upperBounds.reduce((acc, upperBound) => {
            acc[upperBound] = null;
            return acc;
          }, {});
          Object.freeze(this.bucketExemplars);
          this.observe = this.observeWithExemplar;
        } else {
          this.observe = this.observeWithoutExemplar;
        }
        Object.freeze(this.bucketValues);
        Object.freeze(this.upperBounds);
        if (this.labelNames.length === 0) {
          this.hashMap = {
            [hashObject({})]: createBaseValues(
              {},
              this.bucketValues,
              this.bucketExemplars
            )
          };
        }
      }
      /**
       * Observe a value in histogram
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @param {Number} value - Value to observe in the histogram
       * @returns {void}
       */
      observeWithoutExemplar(labels, value) {
        observe.call(this, labels === 0 ? 0 : labels || {})(value);
      }
      observeWithExemplar({
        labels = this.defaultLabels,
        value,
        exemplarLabels = this.defaultExemplarLabelSet
      } = {}) {
        observe.call(this, labels === 0 ? 0 : labels || {})(value);
        this.updateExemplar(labels, value, exemplarLabels);
      }
      updateExemplar(labels, value, exemplarLabels) {
        if (Object.keys(exemplarLabels).length === 0) return;
        const hash = hashObject(labels, this.sortedLabelNames);
        const bound = findBound(this.upperBounds, value);
        const { bucketExemplars } = this.hashMap[hash];
        let exemplar = bucketExemplars[bound];
        if (!isObject(exemplar)) {
          exemplar = new Exemplar();
          bucketExemplars[bound] = exemplar;
        }
        exemplar.validateExemplarLabelSet(exemplarLabels);
        exemplar.labelSet = exemplarLabels;
        exemplar.value = value;
        exemplar.timestamp = nowTimestamp();
      }
      async get() {
        const data = await this.getForPromString();
        data.values = data.values.map(splayLabels);
        return data;
      }
      async getForPromString() {
        if (this.collect) {
          const v = this.collect();
          if (v instanceof Promise) await v;
        }
        const data = Object.values(this.hashMap);
        const values = data.map(extractBucketValuesForExport(this)).reduce(addSumAndCountForExport(this), []);
        return {
          name: this.name,
          help: this.help,
          type: this.type,
          values,
          aggregator: this.aggregator
        };
      }
      reset() {
        this.hashMap = {};
      }
      /**
       * Initialize the metrics for the given combination of labels to zero
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @returns {void}
       */
      zero(labels) {
        const hash = hashObject(labels, this.sortedLabelNames);
        this.hashMap[hash] = createBaseValues(
          labels,
          this.bucketValues,
          this.bucketExemplars
        );
      }
      /**
       * Start a timer that could be used to logging durations
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @param {object} exemplarLabels - Object with labels for exemplar where key is the label key and value is label value. Can only be one level deep
       * @returns {function} - Function to invoke when you want to stop the timer and observe the duration in seconds
       * @example
       * var end = histogram.startTimer();
       * makeExpensiveXHRRequest(function(err, res) {
       * 	const duration = end(); //Observe the duration of expensiveXHRRequest and returns duration in seconds
       * 	console.log('Duration', duration);
       * });
       */
      startTimer(labels, exemplarLabels) {
        return this.enableExemplars ? startTimerWithExemplar.call(this, labels, exemplarLabels)() : startTimer.call(this, labels)();
      }
      labels(...args) {
        const labels = getLabels(this.labelNames, args);
        validateLabel(this.labelNames, labels);
        return {
          observe: observe.call(this, labels),
          startTimer: startTimer.call(this, labels)
        };
      }
      remove(...args) {
        const labels = getLabels(this.labelNames, args);
        validateLabel(this.labelNames, labels);
        removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
      }
    };
    function startTimer(startLabels) {
      return () => {
        const start = process.hrtime();
        return (endLabels) => {
          const delta = process.hrtime(start);
          const value = delta[0] + delta[1] / 1e9;
          this.observe(Object.assign({}, startLabels, endLabels), value);
          return value;
        };
      };
    }
    function startTimerWithExemplar(startLabels, startExemplarLabels) {
      return () => {
        const start = process.hrtime();
        return (endLabels, endExemplarLabels) => {
          const delta = process.hrtime(start);
          const value = delta[0] + delta[1] / 1e9;
          this.observe({
            labels: Object.assign({}, startLabels, endLabels),
            value,
            exemplarLabels: Object.assign(
              {},
              startExemplarLabels,
              endExemplarLabels
            )
          });
          return value;
        };
      };
    }
    function setValuePair(labels, value, metricName, exemplar, sharedLabels = {}) {
      return {
        labels,
        sharedLabels,
        value,
        metricName,
        exemplar
      };
    }
    function findBound(upperBounds, value) {
      for (let i = 0; i < upperBounds.length; i++) {
        const bound = upperBounds[i];
        if (value <= bound) {
          return bound;
        }
      }
      return -1;
    }
    function observe(labels) {
      return (value) => {
        const labelValuePair = convertLabelsAndValues(labels, value);
        validateLabel(this.labelNames, labelValuePair.labels);
        if (!Number.isFinite(labelValuePair.value)) {
          throw new TypeError(
            `Value is not a valid number: ${util.format(labelValuePair.value)}`
          );
        }
        const hash = hashObject(labelValuePair.labels, this.sortedLabelNames);
        let valueFromMap = this.hashMap[hash];
        if (!valueFromMap) {
          valueFromMap = createBaseValues(
            labelValuePair.labels,
            this.bucketValues,
            this.bucketExemplars
          );
        }
        const b = findBound(this.upperBounds, labelValuePair.value);
        valueFromMap.sum += labelValuePair.value;
        valueFromMap.count += 1;
        if (Object.prototype.hasOwnProperty.call(valueFromMap.bucketValues, b)) {
          valueFromMap.bucketValues[b] += 1;
        }
        this.hashMap[hash] = valueFromMap;
      };
    }
    function createBaseValues(labels, bucketValues, bucketExemplars) {
      const result = {
        labels,
        bucketValues: { ...bucketValues },
        sum: 0,
        count: 0
      };
      if (bucketExemplars) {
        result.bucketExemplars = { ...bucketExemplars };
      }
      return result;
    }
    function convertLabelsAndValues(labels, value) {
      return isObject(labels) ? {
        labels,
        value
      } : {
        value: labels,
        labels: {}
      };
    }
    function extractBucketValuesForExport(histogram) {
      const name = `${histogram.name}_bucket`;
      return (bucketData) => {
        let acc = 0;
        const buckets = histogram.upperBounds.map((upperBound) => {
          acc += bucketData.bucketValues[upperBound];
          return setValuePair(
            { le: upperBound },
            acc,
            name,
            bucketData.bucketExemplars ? bucketData.bucketExemplars[upperBound] : null,
            bucketData.labels
          );
        });
        return { buckets, data: bucketData };
      };
    }
    function addSumAndCountForExport(histogram) {
      return (acc, d) => {
        acc.push(...d.buckets);
        const infLabel = { le: "+Inf" };
        acc.push(
          setValuePair(
            infLabel,
            d.data.count,
            `${histogram.name}_bucket`,
            d.data.bucketExemplars ? d.data.bucketExemplars["-1"] : null,
            d.data.labels
          ),
          setValuePair(
            {},
            d.data.sum,
            `${histogram.name}_sum`,
            void 0,
            d.data.labels
          ),
          setValuePair(
            {},
            d.data.count,
            `${histogram.name}_count`,
            void 0,
            d.data.labels
          )
        );
        return acc;
      };
    }
    function splayLabels(bucket) {
      const { sharedLabels, labels, ...newBucket } = bucket;
      for (const label of Object.keys(sharedLabels)) {
        labels[label] = sharedLabels[label];
      }
      newBucket.labels = labels;
      return newBucket;
    }
    module.exports = Histogram2;
  }
});

// node_modules/bintrees/lib/treebase.js
var require_treebase = __commonJS({
  "node_modules/bintrees/lib/treebase.js"(exports, module) {
    function TreeBase() {
    }
    TreeBase.prototype.clear = function() {
      this._root = null;
      this.size = 0;
    };
    TreeBase.prototype.find = function(data) {
      var res = this._root;
      while (res !== null) {
        var c = this._comparator(data, res.data);
        if (c === 0) {
          return res.data;
        } else {
          res = res.get_child(c > 0);
        }
      }
      return null;
    };
    TreeBase.prototype.findIter = function(data) {
      var res = this._root;
      var iter = this.iterator();
      while (res !== null) {
        var c = this._comparator(data, res.data);
        if (c === 0) {
          iter._cursor = res;
          return iter;
        } else {
          iter._ancestors.push(res);
          res = res.get_child(c > 0);
        }
      }
      return null;
    };
    TreeBase.prototype.lowerBound = function(item) {
      var cur = this._root;
      var iter = this.iterator();
      var cmp = this._comparator;
      while (cur !== null) {
        var c = cmp(item, cur.data);
        if (c === 0) {
          iter._cursor = cur;
          return iter;
        }
        iter._ancestors.push(cur);
        cur = cur.get_child(c > 0);
      }
      for (var i = iter._ancestors.length - 1; i >= 0; --i) {
        cur = iter._ancestors[i];
        if (cmp(item, cur.data) < 0) {
          iter._cursor = cur;
          iter._ancestors.length = i;
          return iter;
        }
      }
      iter._ancestors.length = 0;
      return iter;
    };
    TreeBase.prototype.upperBound = function(item) {
      var iter = this.lowerBound(item);
      var cmp = this._comparator;
      while (iter.data() !== null && cmp(iter.data(), item) === 0) {
        iter.next();
      }
      return iter;
    };
    TreeBase.prototype.min = function() {
      var res = this._root;
      if (res === null) {
        return null;
      }
      while (res.left !== null) {
        res = res.left;
      }
      return res.data;
    };
    TreeBase.prototype.max = function() {
      var res = this._root;
      if (res === null) {
        return null;
      }
      while (res.right !== null) {
        res = res.right;
      }
      return res.data;
    };
    TreeBase.prototype.iterator = function() {
      return new Iterator(this);
    };
    TreeBase.prototype.each = function(cb) {
      var it = this.iterator(), data;
      while ((data = it.next()) !== null) {
        if (cb(data) === false) {
          return;
        }
      }
    };
    TreeBase.prototype.reach = function(cb) {
      var it = this.iterator(), data;
      while ((data = it.prev()) !== null) {
        if (cb(data) === false) {
          return;
        }
      }
    };
    function Iterator(tree) {
      this._tree = tree;
      this._ancestors = [];
      this._cursor = null;
    }
    Iterator.prototype.data = function() {
      return this._cursor !== null ? this._cursor.data : null;
    };
    Iterator.prototype.next = function() {
      if (this._cursor === null) {
        var root = this._tree._root;
        if (root !== null) {
          this._minNode(root);
        }
      } else {
        if (this._cursor.right === null) {
          var save;
          do {
            save = this._cursor;
            if (this._ancestors.length) {
              this._cursor = this._ancestors.pop();
            } else {
              this._cursor = null;
              break;
            }
          } while (this._cursor.right === save);
        } else {
          this._ancestors.push(this._cursor);
          this._minNode(this._cursor.right);
        }
      }
      return this._cursor !== null ? this._cursor.data : null;
    };
    Iterator.prototype.prev = function() {
      if (this._cursor === null) {
        var root = this._tree._root;
        if (root !== null) {
          this._maxNode(root);
        }
      } else {
        if (this._cursor.left === null) {
          var save;
          do {
            save = this._cursor;
            if (this._ancestors.length) {
              this._cursor = this._ancestors.pop();
            } else {
              this._cursor = null;
              break;
            }
          } while (this._cursor.left === save);
        } else {
          this._ancestors.push(this._cursor);
          this._maxNode(this._cursor.left);
        }
      }
      return this._cursor !== null ? this._cursor.data : null;
    };
    Iterator.prototype._minNode = function(start) {
      while (start.left !== null) {
        this._ancestors.push(start);
        start = start.left;
      }
      this._cursor = start;
    };
    Iterator.prototype._maxNode = function(start) {
      while (start.right !== null) {
        this._ancestors.push(start);
        start = start.right;
      }
      this._cursor = start;
    };
    module.exports = TreeBase;
  }
});

// node_modules/bintrees/lib/rbtree.js
var require_rbtree = __commonJS({
  "node_modules/bintrees/lib/rbtree.js"(exports, module) {
    var TreeBase = require_treebase();
    function Node(data) {
      this.data = data;
      this.left = null;
      this.right = null;
      this.red = true;
    }
    Node.prototype.get_child = function(dir) {
      return dir ? this.right : this.left;
    };
    Node.prototype.set_child = function(dir, val) {
      if (dir) {
        this.right = val;
      } else {
        this.left = val;
      }
    };
    function RBTree(comparator) {
      this._root = null;
      this._comparator = comparator;
      this.size = 0;
    }
    RBTree.prototype = new TreeBase();
    RBTree.prototype.insert = function(data) {
      var ret2 = false;
      if (this._root === null) {
        this._root = new Node(data);
        ret2 = true;
        this.size++;
      } else {
        var head = new Node(void 0);
        var dir = 0;
        var last = 0;
        var gp = null;
        var ggp = head;
        var p = null;
        var node = this._root;
        ggp.right = this._root;
        while (true) {
          if (node === null) {
            node = new Node(data);
            p.set_child(dir, node);
            ret2 = true;
            this.size++;
          } else if (is_red(node.left) && is_red(node.right)) {
            node.red = true;
            node.left.red = false;
            node.right.red = false;
          }
          if (is_red(node) && is_red(p)) {
            var dir2 = ggp.right === gp;
            if (node === p.get_child(last)) {
              ggp.set_child(dir2, single_rotate(gp, !last));
            } else {
              ggp.set_child(dir2, double_rotate(gp, !last));
            }
          }
          var cmp = this._comparator(node.data, data);
          if (cmp === 0) {
            break;
          }
          last = dir;
          dir = cmp < 0;
          if (gp !== null) {
            ggp = gp;
          }
          gp = p;
          p = node;
          node = node.get_child(dir);
        }
        this._root = head.right;
      }
      this._root.red = false;
      return ret2;
    };
    RBTree.prototype.remove = function(data) {
      if (this._root === null) {
        return false;
      }
      var head = new Node(void 0);
      var node = head;
      node.right = this._root;
      var p = null;
      var gp = null;
      var found = null;
      var dir = 1;
      while (node.get_child(dir) !== null) {
        var last = dir;
        gp = p;
        p = node;
        node = node.get_child(dir);
        var cmp = this._comparator(data, node.data);
        dir = cmp > 0;
        if (cmp === 0) {
          found = node;
        }
        if (!is_red(node) && !is_red(node.get_child(dir))) {
          if (is_red(node.get_child(!dir))) {
            var sr = single_rotate(node, dir);
            p.set_child(last, sr);
            p = sr;
          } else if (!is_red(node.get_child(!dir))) {
            var sibling = p.get_child(!last);
            if (sibling !== null) {
              if (!is_red(sibling.get_child(!last)) && !is_red(sibling.get_child(last))) {
                p.red = false;
                sibling.red = true;
                node.red = true;
              } else {
                var dir2 = gp.right === p;
                if (is_red(sibling.get_child(last))) {
                  gp.set_child(dir2, double_rotate(p, last));
                } else if (is_red(sibling.get_child(!last))) {
                  gp.set_child(dir2, single_rotate(p, last));
                }
                var gpc = gp.get_child(dir2);
                gpc.red = true;
                node.red = true;
                gpc.left.red = false;
                gpc.right.red = false;
              }
            }
          }
        }
      }
      if (found !== null) {
        found.data = node.data;
        p.set_child(p.right === node, node.get_child(node.left === null));
        this.size--;
      }
      this._root = head.right;
      if (this._root !== null) {
        this._root.red = false;
      }
      return found !== null;
    };
    function is_red(node) {
      return node !== null && node.red;
    }
    function single_rotate(root, dir) {
      var save = root.get_child(!dir);
      root.set_child(!dir, save.get_child(dir));
      save.set_child(dir, root);
      root.red = true;
      save.red = false;
      return save;
    }
    function double_rotate(root, dir) {
      root.set_child(!dir, single_rotate(root.get_child(!dir), !dir));
      return single_rotate(root, dir);
    }
    module.exports = RBTree;
  }
});

// node_modules/bintrees/lib/bintree.js
var require_bintree = __commonJS({
  "node_modules/bintrees/lib/bintree.js"(exports, module) {
    var TreeBase = require_treebase();
    function Node(data) {
      this.data = data;
      this.left = null;
      this.right = null;
    }
    Node.prototype.get_child = function(dir) {
      return dir ? this.right : this.left;
    };
    Node.prototype.set_child = function(dir, val) {
      if (dir) {
        this.right = val;
      } else {
        this.left = val;
      }
    };
    function BinTree(comparator) {
      this._root = null;
      this._comparator = comparator;
      this.size = 0;
    }
    BinTree.prototype = new TreeBase();
    BinTree.prototype.insert = function(data) {
      if (this._root === null) {
        this._root = new Node(data);
        this.size++;
        return true;
      }
      var dir = 0;
      var p = null;
      var node = this._root;
      while (true) {
        if (node === null) {
          node = new Node(data);
          p.set_child(dir, node);
          ret = true;
          this.size++;
          return true;
        }
        if (this._comparator(node.data, data) === 0) {
          return false;
        }
        dir = this._comparator(node.data, data) < 0;
        p = node;
        node = node.get_child(dir);
      }
    };
    BinTree.prototype.remove = function(data) {
      if (this._root === null) {
        return false;
      }
      var head = new Node(void 0);
      var node = head;
      node.right = this._root;
      var p = null;
      var found = null;
      var dir = 1;
      while (node.get_child(dir) !== null) {
        p = node;
        node = node.get_child(dir);
        var cmp = this._comparator(data, node.data);
        dir = cmp > 0;
        if (cmp === 0) {
          found = node;
        }
      }
      if (found !== null) {
        found.data = node.data;
        p.set_child(p.right === node, node.get_child(node.left === null));
        this._root = head.right;
        this.size--;
        return true;
      } else {
        return false;
      }
    };
    module.exports = BinTree;
  }
});

// node_modules/bintrees/index.js
var require_bintrees = __commonJS({
  "node_modules/bintrees/index.js"(exports, module) {
    module.exports = {
      RBTree: require_rbtree(),
      BinTree: require_bintree()
    };
  }
});

// node_modules/tdigest/tdigest.js
var require_tdigest = __commonJS({
  "node_modules/tdigest/tdigest.js"(exports, module) {
    var RBTree = require_bintrees().RBTree;
    function TDigest(delta, K, CX) {
      this.discrete = delta === false;
      this.delta = delta || 0.01;
      this.K = K === void 0 ? 25 : K;
      this.CX = CX === void 0 ? 1.1 : CX;
      this.centroids = new RBTree(compare_centroid_means);
      this.nreset = 0;
      this.reset();
    }
    TDigest.prototype.reset = function() {
      this.centroids.clear();
      this.n = 0;
      this.nreset += 1;
      this.last_cumulate = 0;
    };
    TDigest.prototype.size = function() {
      return this.centroids.size;
    };
    TDigest.prototype.toArray = function(everything) {
      var result = [];
      if (everything) {
        this._cumulate(true);
        this.centroids.each(function(c) {
          result.push(c);
        });
      } else {
        this.centroids.each(function(c) {
          result.push({ mean: c.mean, n: c.n });
        });
      }
      return result;
    };
    TDigest.prototype.summary = function() {
      var approx = this.discrete ? "exact " : "approximating ";
      var s = [
        approx + this.n + " samples using " + this.size() + " centroids",
        "min = " + this.percentile(0),
        "Q1  = " + this.percentile(0.25),
        "Q2  = " + this.percentile(0.5),
        "Q3  = " + this.percentile(0.75),
        "max = " + this.percentile(1)
      ];
      return s.join("\n");
    };
    function compare_centroid_means(a, b) {
      return a.mean > b.mean ? 1 : a.mean < b.mean ? -1 : 0;
    }
    function compare_centroid_mean_cumns(a, b) {
      return a.mean_cumn - b.mean_cumn;
    }
    TDigest.prototype.push = function(x, n) {
      n = n || 1;
      x = Array.isArray(x) ? x : [x];
      for (var i = 0; i < x.length; i++) {
        this._digest(x[i], n);
      }
    };
    TDigest.prototype.push_centroid = function(c) {
      c = Array.isArray(c) ? c : [c];
      for (var i = 0; i < c.length; i++) {
        this._digest(c[i].mean, c[i].n);
      }
    };
    TDigest.prototype._cumulate = function(exact) {
      if (this.n === this.last_cumulate || !exact && this.CX && this.CX > this.n / this.last_cumulate) {
        return;
      }
      var cumn = 0;
      this.centroids.each(function(c) {
        c.mean_cumn = cumn + c.n / 2;
        cumn = c.cumn = cumn + c.n;
      });
      this.n = this.last_cumulate = cumn;
    };
    TDigest.prototype.find_nearest = function(x) {
      if (this.size() === 0) {
        return null;
      }
      var iter = this.centroids.lowerBound({ mean: x });
      var c = iter.data() === null ? iter.prev() : iter.data();
      if (c.mean === x || this.discrete) {
        return c;
      }
      var prev = iter.prev();
      if (prev && Math.abs(prev.mean - x) < Math.abs(c.mean - x)) {
        return prev;
      } else {
        return c;
      }
    };
    TDigest.prototype._new_centroid = function(x, n, cumn) {
      var c = { mean: x, n, cumn };
      this.centroids.insert(c);
      this.n += n;
      return c;
    };
    TDigest.prototype._addweight = function(nearest, x, n) {
      if (x !== nearest.mean) {
        nearest.mean += n * (x - nearest.mean) / (nearest.n + n);
      }
      nearest.cumn += n;
      nearest.mean_cumn += n / 2;
      nearest.n += n;
      this.n += n;
    };
    TDigest.prototype._digest = function(x, n) {
      var min = this.centroids.min();
      var max = this.centroids.max();
      var nearest = this.find_nearest(x);
      if (nearest && nearest.mean === x) {
        this._addweight(nearest, x, n);
      } else if (nearest === min) {
        this._new_centroid(x, n, 0);
      } else if (nearest === max) {
        this._new_centroid(x, n, this.n);
      } else if (this.discrete) {
        this._new_centroid(x, n, nearest.cumn);
      } else {
        var p = nearest.mean_cumn / this.n;
        var max_n = Math.floor(4 * this.n * this.delta * p * (1 - p));
        if (max_n - nearest.n >= n) {
          this._addweight(nearest, x, n);
        } else {
          this._new_centroid(x, n, nearest.cumn);
        }
      }
      this._cumulate(false);
      if (!this.discrete && this.K && this.size() > this.K / this.delta) {
        this.compress();
      }
    };
    TDigest.prototype.bound_mean = function(x) {
      var iter = this.centroids.upperBound({ mean: x });
      var lower = iter.prev();
      var upper = lower.mean === x ? lower : iter.next();
      return [lower, upper];
    };
    TDigest.prototype.p_rank = function(x_or_xlist) {
      var xs = Array.isArray(x_or_xlist) ? x_or_xlist : [x_or_xlist];
      var ps = xs.map(this._p_rank, this);
      return Array.isArray(x_or_xlist) ? ps : ps[0];
    };
    TDigest.prototype._p_rank = function(x) {
      if (this.size() === 0) {
        return void 0;
      } else if (x < this.centroids.min().mean) {
        return 0;
      } else if (x > this.centroids.max().mean) {
        return 1;
      }
      this._cumulate(true);
      var bound = this.bound_mean(x);
      var lower = bound[0], upper = bound[1];
      if (this.discrete) {
        return lower.cumn / this.n;
      } else {
        var cumn = lower.mean_cumn;
        if (lower !== upper) {
          cumn += (x - lower.mean) * (upper.mean_cumn - lower.mean_cumn) / (upper.mean - lower.mean);
        }
        return cumn / this.n;
      }
    };
    TDigest.prototype.bound_mean_cumn = function(cumn) {
      this.centroids._comparator = compare_centroid_mean_cumns;
      var iter = this.centroids.upperBound({ mean_cumn: cumn });
      this.centroids._comparator = compare_centroid_means;
      var lower = iter.prev();
      var upper = lower && lower.mean_cumn === cumn ? lower : iter.next();
      return [lower, upper];
    };
    TDigest.prototype.percentile = function(p_or_plist) {
      var ps = Array.isArray(p_or_plist) ? p_or_plist : [p_or_plist];
      var qs = ps.map(this._percentile, this);
      return Array.isArray(p_or_plist) ? qs : qs[0];
    };
    TDigest.prototype._percentile = function(p) {
      if (this.size() === 0) {
        return void 0;
      }
      this._cumulate(true);
      var h = this.n * p;
      var bound = this.bound_mean_cumn(h);
      var lower = bound[0], upper = bound[1];
      if (upper === lower || lower === null || upper === null) {
        return (lower || upper).mean;
      } else if (!this.discrete) {
        return lower.mean + (h - lower.mean_cumn) * (upper.mean - lower.mean) / (upper.mean_cumn - lower.mean_cumn);
      } else if (h <= lower.cumn) {
        return lower.mean;
      } else {
        return upper.mean;
      }
    };
    function pop_random(choices) {
      var idx = Math.floor(Math.random() * choices.length);
      return choices.splice(idx, 1)[0];
    }
    TDigest.prototype.compress = function() {
      if (this.compressing) {
        return;
      }
      var points = this.toArray();
      this.reset();
      this.compressing = true;
      while (points.length > 0) {
        this.push_centroid(pop_random(points));
      }
      this._cumulate(true);
      this.compressing = false;
    };
    function Digest(config) {
      this.config = config || {};
      this.mode = this.config.mode || "auto";
      TDigest.call(this, this.mode === "cont" ? config.delta : false);
      this.digest_ratio = this.config.ratio || 0.9;
      this.digest_thresh = this.config.thresh || 1e3;
      this.n_unique = 0;
    }
    Digest.prototype = Object.create(TDigest.prototype);
    Digest.prototype.constructor = Digest;
    Digest.prototype.push = function(x_or_xlist) {
      TDigest.prototype.push.call(this, x_or_xlist);
      this.check_continuous();
    };
    Digest.prototype._new_centroid = function(x, n, cumn) {
      this.n_unique += 1;
      TDigest.prototype._new_centroid.call(this, x, n, cumn);
    };
    Digest.prototype._addweight = function(nearest, x, n) {
      if (nearest.n === 1) {
        this.n_unique -= 1;
      }
      TDigest.prototype._addweight.call(this, nearest, x, n);
    };
    Digest.prototype.check_continuous = function() {
      if (this.mode !== "auto" || this.size() < this.digest_thresh) {
        return false;
      }
      if (this.n_unique / this.size() > this.digest_ratio) {
        this.mode = "cont";
        this.discrete = false;
        this.delta = this.config.delta || 0.01;
        this.compress();
        return true;
      }
      return false;
    };
    module.exports = {
      "TDigest": TDigest,
      "Digest": Digest
    };
  }
});

// node_modules/prom-client/lib/timeWindowQuantiles.js
var require_timeWindowQuantiles = __commonJS({
  "node_modules/prom-client/lib/timeWindowQuantiles.js"(exports, module) {
    "use strict";
    var { TDigest } = require_tdigest();
    var TimeWindowQuantiles = class {
      constructor(maxAgeSeconds, ageBuckets) {
        this.maxAgeSeconds = maxAgeSeconds || 0;
        this.ageBuckets = ageBuckets || 0;
        this.shouldRotate = maxAgeSeconds && ageBuckets;
        this.ringBuffer = Array(ageBuckets).fill(new TDigest());
        this.currentBuffer = 0;
        this.lastRotateTimestampMillis = Date.now();
        this.durationBetweenRotatesMillis = maxAgeSeconds * 1e3 / ageBuckets || Infinity;
      }
      size() {
        const bucket = rotate.call(this);
        return bucket.size();
      }
      percentile(quantile) {
        const bucket = rotate.call(this);
        return bucket.percentile(quantile);
      }
      push(value) {
        rotate.call(this);
        this.ringBuffer.forEach((bucket) => {
          bucket.push(value);
        });
      }
      reset() {
        this.ringBuffer.forEach((bucket) => {
          bucket.reset();
        });
      }
      compress() {
        this.ringBuffer.forEach((bucket) => {
          bucket.compress();
        });
      }
    };
    function rotate() {
      let timeSinceLastRotateMillis = Date.now() - this.lastRotateTimestampMillis;
      while (timeSinceLastRotateMillis > this.durationBetweenRotatesMillis && this.shouldRotate) {
        this.ringBuffer[this.currentBuffer] = new TDigest();
        if (++this.currentBuffer >= this.ringBuffer.length) {
          this.currentBuffer = 0;
        }
        timeSinceLastRotateMillis -= this.durationBetweenRotatesMillis;
        this.lastRotateTimestampMillis += this.durationBetweenRotatesMillis;
      }
      return this.ringBuffer[this.currentBuffer];
    }
    module.exports = TimeWindowQuantiles;
  }
});

// node_modules/prom-client/lib/summary.js
var require_summary = __commonJS({
  "node_modules/prom-client/lib/summary.js"(exports, module) {
    "use strict";
    var util = __require("util");
    var { getLabels, hashObject, removeLabels } = require_util();
    var { validateLabel } = require_validation();
    var { Metric } = require_metric();
    var timeWindowQuantiles = require_timeWindowQuantiles();
    var DEFAULT_COMPRESS_COUNT = 1e3;
    var Summary = class extends Metric {
      constructor(config) {
        super(config, {
          percentiles: [0.01, 0.05, 0.5, 0.9, 0.95, 0.99, 0.999],
          compressCount: DEFAULT_COMPRESS_COUNT,
          hashMap: {}
        });
        this.type = "summary";
        for (const label of this.labelNames) {
          if (label === "quantile")
            throw new Error("quantile is a reserved label keyword");
        }
        if (this.labelNames.length === 0) {
          this.hashMap = {
            [hashObject({})]: {
              labels: {},
              td: new timeWindowQuantiles(this.maxAgeSeconds, this.ageBuckets),
              count: 0,
              sum: 0
            }
          };
        }
      }
      /**
       * Observe a value
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @param {Number} value - Value to observe
       * @returns {void}
       */
      observe(labels, value) {
        observe.call(this, labels === 0 ? 0 : labels || {})(value);
      }
      async get() {
        if (this.collect) {
          const v = this.collect();
          if (v instanceof Promise) await v;
        }
        const hashKeys = Object.keys(this.hashMap);
        const values = [];
        hashKeys.forEach((hashKey) => {
          const s = this.hashMap[hashKey];
          if (s) {
            if (this.pruneAgedBuckets && s.td.size() === 0) {
              delete this.hashMap[hashKey];
            } else {
              extractSummariesForExport(s, this.percentiles).forEach((v) => {
                values.push(v);
              });
              values.push(getSumForExport(s, this));
              values.push(getCountForExport(s, this));
            }
          }
        });
        return {
          name: this.name,
          help: this.help,
          type: this.type,
          values,
          aggregator: this.aggregator
        };
      }
      reset() {
        const data = Object.values(this.hashMap);
        data.forEach((s) => {
          s.td.reset();
          s.count = 0;
          s.sum = 0;
        });
      }
      /**
       * Start a timer that could be used to logging durations
       * @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
       * @returns {function} - Function to invoke when you want to stop the timer and observe the duration in seconds
       * @example
       * var end = summary.startTimer();
       * makeExpensiveXHRRequest(function(err, res) {
       *	end(); //Observe the duration of expensiveXHRRequest
       * });
       */
      startTimer(labels) {
        return startTimer.call(this, labels)();
      }
      labels(...args) {
        const labels = getLabels(this.labelNames, args);
        validateLabel(this.labelNames, labels);
        return {
          observe: observe.call(this, labels),
          startTimer: startTimer.call(this, labels)
        };
      }
      remove(...args) {
        const labels = getLabels(this.labelNames, args);
        validateLabel(this.labelNames, labels);
        removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
      }
    };
    function extractSummariesForExport(summaryOfLabels, percentiles) {
      summaryOfLabels.td.compress();
      return percentiles.map((percentile) => {
        const percentileValue = summaryOfLabels.td.percentile(percentile);
        return {
          labels: Object.assign({ quantile: percentile }, summaryOfLabels.labels),
          value: percentileValue ? percentileValue : 0
        };
      });
    }
    function getCountForExport(value, summary) {
      return {
        metricName: `${summary.name}_count`,
        labels: value.labels,
        value: value.count
      };
    }
    function getSumForExport(value, summary) {
      return {
        metricName: `${summary.name}_sum`,
        labels: value.labels,
        value: value.sum
      };
    }
    function startTimer(startLabels) {
      return () => {
        const start = process.hrtime();
        return (endLabels) => {
          const delta = process.hrtime(start);
          const value = delta[0] + delta[1] / 1e9;
          this.observe(Object.assign({}, startLabels, endLabels), value);
          return value;
        };
      };
    }
    function observe(labels) {
      return (value) => {
        const labelValuePair = convertLabelsAndValues(labels, value);
        validateLabel(this.labelNames, labels);
        if (!Number.isFinite(labelValuePair.value)) {
          throw new TypeError(
            `Value is not a valid number: ${util.format(labelValuePair.value)}`
          );
        }
        const hash = hashObject(labelValuePair.labels, this.sortedLabelNames);
        let summaryOfLabel = this.hashMap[hash];
        if (!summaryOfLabel) {
          summaryOfLabel = {
            labels: labelValuePair.labels,
            td: new timeWindowQuantiles(this.maxAgeSeconds, this.ageBuckets),
            count: 0,
            sum: 0
          };
        }
        summaryOfLabel.td.push(labelValuePair.value);
        summaryOfLabel.count++;
        if (summaryOfLabel.count % this.compressCount === 0) {
          summaryOfLabel.td.compress();
        }
        summaryOfLabel.sum += labelValuePair.value;
        this.hashMap[hash] = summaryOfLabel;
      };
    }
    function convertLabelsAndValues(labels, value) {
      if (value === void 0) {
        return {
          value: labels,
          labels: {}
        };
      }
      return {
        labels,
        value
      };
    }
    module.exports = Summary;
  }
});

// node_modules/prom-client/lib/pushgateway.js
var require_pushgateway = __commonJS({
  "node_modules/prom-client/lib/pushgateway.js"(exports, module) {
    "use strict";
    var url = __require("url");
    var http = __require("http");
    var https = __require("https");
    var { gzipSync } = __require("zlib");
    var { globalRegistry } = require_registry();
    var Pushgateway = class {
      constructor(gatewayUrl, options, registry) {
        if (!registry) {
          registry = globalRegistry;
        }
        this.registry = registry;
        this.gatewayUrl = gatewayUrl;
        const { requireJobName, ...requestOptions } = {
          requireJobName: true,
          ...options
        };
        this.requireJobName = requireJobName;
        this.requestOptions = requestOptions;
      }
      pushAdd(params = {}) {
        if (this.requireJobName && !params.jobName) {
          throw new Error("Missing jobName parameter");
        }
        return useGateway.call(this, "POST", params.jobName, params.groupings);
      }
      push(params = {}) {
        if (this.requireJobName && !params.jobName) {
          throw new Error("Missing jobName parameter");
        }
        return useGateway.call(this, "PUT", params.jobName, params.groupings);
      }
      delete(params = {}) {
        if (this.requireJobName && !params.jobName) {
          throw new Error("Missing jobName parameter");
        }
        return useGateway.call(this, "DELETE", params.jobName, params.groupings);
      }
    };
    async function useGateway(method, job, groupings) {
      const gatewayUrlParsed = url.parse(this.gatewayUrl);
      const gatewayUrlPath = gatewayUrlParsed.pathname && gatewayUrlParsed.pathname !== "/" ? gatewayUrlParsed.pathname : "";
      const jobPath = job ? `/job/${encodeURIComponent(job)}${generateGroupings(groupings)}` : "";
      const path = `${gatewayUrlPath}/metrics${jobPath}`;
      const target = url.resolve(this.gatewayUrl, path);
      const requestParams = url.parse(target);
      const httpModule = isHttps(requestParams.href) ? https : http;
      const options = Object.assign(requestParams, this.requestOptions, {
        method
      });
      return new Promise((resolve, reject) => {
        if (method === "DELETE" && options.headers) {
          delete options.headers["Content-Encoding"];
        }
        const req = httpModule.request(options, (resp) => {
          let body = "";
          resp.setEncoding("utf8");
          resp.on("data", (chunk) => {
            body += chunk;
          });
          resp.on("end", () => {
            if (resp.statusCode >= 400) {
              reject(
                new Error(`push failed with status ${resp.statusCode}, ${body}`)
              );
            } else {
              resolve({ resp, body });
            }
          });
        });
        req.on("error", (err) => {
          reject(err);
        });
        req.on("timeout", () => {
          req.destroy(new Error("Pushgateway request timed out"));
        });
        if (method !== "DELETE") {
          this.registry.metrics().then((metrics) => {
            if (options.headers && options.headers["Content-Encoding"] === "gzip") {
              metrics = gzipSync(metrics);
            }
            req.write(metrics);
            req.end();
          }).catch((err) => {
            reject(err);
          });
        } else {
          req.end();
        }
      });
    }
    function generateGroupings(groupings) {
      if (!groupings) {
        return "";
      }
      return Object.keys(groupings).map(
        (key) => `/${encodeURIComponent(key)}/${encodeURIComponent(groupings[key])}`
      ).join("");
    }
    function isHttps(href) {
      return href.search(/^https/) !== -1;
    }
    module.exports = Pushgateway;
  }
});

// node_modules/prom-client/lib/bucketGenerators.js
var require_bucketGenerators = __commonJS({
  "node_modules/prom-client/lib/bucketGenerators.js"(exports) {
    "use strict";
    exports.linearBuckets = (start, width, count) => {
      if (count < 1) {
        throw new Error("Linear buckets needs a positive count");
      }
      const buckets = new Array(count);
      for (let i = 0; i < count; i++) {
        buckets[i] = start + i * width;
      }
      return buckets;
    };
    exports.exponentialBuckets = (start, factor, count) => {
      if (start <= 0) {
        throw new Error("Exponential buckets needs a positive start");
      }
      if (count < 1) {
        throw new Error("Exponential buckets needs a positive count");
      }
      if (factor <= 1) {
        throw new Error("Exponential buckets needs a factor greater than 1");
      }
      const buckets = new Array(count);
      for (let i = 0; i < count; i++) {
        buckets[i] = start;
        start *= factor;
      }
      return buckets;
    };
  }
});

// node_modules/@opentelemetry/api/dist/diag/types.cjs
var require_types = __commonJS({
  "node_modules/@opentelemetry/api/dist/diag/types.cjs"(exports) {
    var DiagLogLevel = /* @__PURE__ */ (function(DiagLogLevel2) {
      DiagLogLevel2[DiagLogLevel2["NONE"] = 0] = "NONE";
      DiagLogLevel2[DiagLogLevel2["ERROR"] = 30] = "ERROR";
      DiagLogLevel2[DiagLogLevel2["WARN"] = 50] = "WARN";
      DiagLogLevel2[DiagLogLevel2["INFO"] = 60] = "INFO";
      DiagLogLevel2[DiagLogLevel2["DEBUG"] = 70] = "DEBUG";
      DiagLogLevel2[DiagLogLevel2["VERBOSE"] = 80] = "VERBOSE";
      DiagLogLevel2[DiagLogLevel2["ALL"] = 9999] = "ALL";
      return DiagLogLevel2;
    })({});
    exports.DiagLogLevel = DiagLogLevel;
  }
});

// node_modules/@opentelemetry/api/dist/version.cjs
var require_version = __commonJS({
  "node_modules/@opentelemetry/api/dist/version.cjs"(exports) {
    var VERSION = "1.10.0";
    exports.VERSION = VERSION;
  }
});

// node_modules/@opentelemetry/api/dist/internal/semver.cjs
var require_semver = __commonJS({
  "node_modules/@opentelemetry/api/dist/internal/semver.cjs"(exports) {
    var require_version3 = require_version();
    var re = /^(\d+)\.(\d+)\.(\d+)(-(.+))?$/;
    function _makeCompatibilityCheck(ownVersion) {
      const acceptedVersions = /* @__PURE__ */ new Set([ownVersion]);
      const rejectedVersions = /* @__PURE__ */ new Set();
      const myVersionMatch = ownVersion.match(re);
      if (!myVersionMatch) return () => false;
      const ownVersionParsed = {
        major: +myVersionMatch[1],
        minor: +myVersionMatch[2],
        patch: +myVersionMatch[3],
        prerelease: myVersionMatch[4]
      };
      if (ownVersionParsed.prerelease != null) return function isExactmatch(globalVersion) {
        return globalVersion === ownVersion;
      };
      function _reject(v) {
        rejectedVersions.add(v);
        return false;
      }
      function _accept(v) {
        acceptedVersions.add(v);
        return true;
      }
      return function isCompatible2(globalVersion) {
        if (acceptedVersions.has(globalVersion)) return true;
        if (rejectedVersions.has(globalVersion)) return false;
        const globalVersionMatch = globalVersion.match(re);
        if (!globalVersionMatch) return _reject(globalVersion);
        const globalVersionParsed = {
          major: +globalVersionMatch[1],
          minor: +globalVersionMatch[2],
          patch: +globalVersionMatch[3],
          prerelease: globalVersionMatch[4]
        };
        if (globalVersionParsed.prerelease != null) return _reject(globalVersion);
        if (ownVersionParsed.major !== globalVersionParsed.major) return _reject(globalVersion);
        if (ownVersionParsed.major === 0) {
          if (ownVersionParsed.minor === globalVersionParsed.minor && ownVersionParsed.patch <= globalVersionParsed.patch) return _accept(globalVersion);
          return _reject(globalVersion);
        }
        if (ownVersionParsed.minor <= globalVersionParsed.minor) return _accept(globalVersion);
        return _reject(globalVersion);
      };
    }
    var isCompatible = _makeCompatibilityCheck(require_version3.VERSION);
    exports._makeCompatibilityCheck = _makeCompatibilityCheck;
    exports.isCompatible = isCompatible;
  }
});

// node_modules/@opentelemetry/api/dist/internal/global-utils.cjs
var require_global_utils = __commonJS({
  "node_modules/@opentelemetry/api/dist/internal/global-utils.cjs"(exports) {
    var require_version3 = require_version();
    var require_semver2 = require_semver();
    var major = require_version3.VERSION.split(".")[0];
    var GLOBAL_OPENTELEMETRY_API_KEY = /* @__PURE__ */ Symbol.for(`opentelemetry.js.api.${major}`);
    var _global = typeof globalThis === "object" ? globalThis : typeof self === "object" ? self : typeof window === "object" ? window : typeof global === "object" ? global : {};
    function _makeGlobalApi() {
      return Object.defineProperty({}, "version", {
        value: require_version3.VERSION,
        enumerable: true,
        writable: false,
        configurable: false
      });
    }
    function registerGlobal(type, instance, diag, allowOverride = false) {
      var _global$GLOBAL_OPENTE;
      const api = _global[GLOBAL_OPENTELEMETRY_API_KEY] = (_global$GLOBAL_OPENTE = _global[GLOBAL_OPENTELEMETRY_API_KEY]) !== null && _global$GLOBAL_OPENTE !== void 0 ? _global$GLOBAL_OPENTE : _makeGlobalApi();
      if (!allowOverride && api[type]) {
        const err = /* @__PURE__ */ new Error(`@opentelemetry/api: Attempted duplicate registration of API: ${type}`);
        diag.error(err.stack || err.message);
        return false;
      }
      if (api.version !== "1.10.0") {
        const err = /* @__PURE__ */ new Error(`@opentelemetry/api: Registration of version v${api.version} for ${type} does not match previously registered API v${require_version3.VERSION}`);
        diag.error(err.stack || err.message);
        return false;
      }
      api[type] = instance;
      diag.debug(`@opentelemetry/api: Registered a global for ${type} v${require_version3.VERSION}.`);
      return true;
    }
    var _compatibleGlobalApi;
    function getGlobal(type) {
      const api = _global[GLOBAL_OPENTELEMETRY_API_KEY];
      if (api == null) return;
      if (api !== _compatibleGlobalApi) {
        if (!api.version || !require_semver2.isCompatible(api.version)) return;
        _compatibleGlobalApi = api;
      }
      return api[type];
    }
    function unregisterGlobal(type, diag) {
      diag.debug(`@opentelemetry/api: Unregistering a global for ${type} v${require_version3.VERSION}.`);
      const api = _global[GLOBAL_OPENTELEMETRY_API_KEY];
      if (api) delete api[type];
    }
    exports.getGlobal = getGlobal;
    exports.registerGlobal = registerGlobal;
    exports.unregisterGlobal = unregisterGlobal;
  }
});

// node_modules/@opentelemetry/api/dist/diag/ComponentLogger.cjs
var require_ComponentLogger = __commonJS({
  "node_modules/@opentelemetry/api/dist/diag/ComponentLogger.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var DiagComponentLogger = class {
      constructor(props) {
        this._namespace = props.namespace || "DiagComponentLogger";
      }
      debug(...args) {
        return logProxy("debug", this._namespace, args);
      }
      error(...args) {
        return logProxy("error", this._namespace, args);
      }
      info(...args) {
        return logProxy("info", this._namespace, args);
      }
      warn(...args) {
        return logProxy("warn", this._namespace, args);
      }
      verbose(...args) {
        return logProxy("verbose", this._namespace, args);
      }
    };
    function logProxy(funcName, namespace, args) {
      const logger = require_global_utils2.getGlobal("diag");
      if (!logger) return;
      return logger[funcName](namespace, ...args);
    }
    exports.DiagComponentLogger = DiagComponentLogger;
  }
});

// node_modules/@opentelemetry/api/dist/diag/internal/logLevelLogger.cjs
var require_logLevelLogger = __commonJS({
  "node_modules/@opentelemetry/api/dist/diag/internal/logLevelLogger.cjs"(exports) {
    require_types();
    function createLogLevelDiagLogger(maxLevel, logger) {
      if (maxLevel < 0) maxLevel = 0;
      else if (maxLevel > 9999) maxLevel = 9999;
      logger = logger || {};
      function _filterFunc(funcName, theLevel) {
        const theFunc = logger[funcName];
        if (typeof theFunc === "function" && maxLevel >= theLevel) return theFunc.bind(logger);
        return function() {
        };
      }
      return {
        error: _filterFunc("error", 30),
        warn: _filterFunc("warn", 50),
        info: _filterFunc("info", 60),
        debug: _filterFunc("debug", 70),
        verbose: _filterFunc("verbose", 80)
      };
    }
    exports.createLogLevelDiagLogger = createLogLevelDiagLogger;
  }
});

// node_modules/@opentelemetry/api/dist/api/diag.cjs
var require_diag = __commonJS({
  "node_modules/@opentelemetry/api/dist/api/diag.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var require_ComponentLogger2 = require_ComponentLogger();
    require_types();
    var require_logLevelLogger2 = require_logLevelLogger();
    var API_NAME = "diag";
    var DiagAPI = class DiagAPI2 {
      /** Get the singleton instance of the DiagAPI API */
      static instance() {
        if (!this._instance) this._instance = new DiagAPI2();
        return this._instance;
      }
      /**
      * Private internal constructor
      * @private
      */
      constructor() {
        function _logProxy(funcName) {
          return function(...args) {
            const logger = require_global_utils2.getGlobal("diag");
            if (!logger) return;
            return logger[funcName](...args);
          };
        }
        const self2 = this;
        const setLogger = (logger, optionsOrLogLevel = { logLevel: 60 }) => {
          var _optionsOrLogLevel$lo;
          if (logger === self2) {
            var _err$stack;
            const err = /* @__PURE__ */ new Error("Cannot use diag as the logger for itself. Please use a DiagLogger implementation like ConsoleDiagLogger or a custom implementation");
            self2.error((_err$stack = err.stack) !== null && _err$stack !== void 0 ? _err$stack : err.message);
            return false;
          }
          if (typeof optionsOrLogLevel === "number") optionsOrLogLevel = { logLevel: optionsOrLogLevel };
          const oldLogger = require_global_utils2.getGlobal("diag");
          const newLogger = require_logLevelLogger2.createLogLevelDiagLogger((_optionsOrLogLevel$lo = optionsOrLogLevel.logLevel) !== null && _optionsOrLogLevel$lo !== void 0 ? _optionsOrLogLevel$lo : 60, logger);
          if (oldLogger && !optionsOrLogLevel.suppressOverrideMessage) {
            var _Error$stack;
            const stack = (_Error$stack = (/* @__PURE__ */ new Error()).stack) !== null && _Error$stack !== void 0 ? _Error$stack : "<failed to generate stacktrace>";
            oldLogger.warn(`Current logger will be overwritten from ${stack}`);
            newLogger.warn(`Current logger will overwrite one already registered from ${stack}`);
          }
          return require_global_utils2.registerGlobal("diag", newLogger, self2, true);
        };
        self2.setLogger = setLogger;
        self2.disable = () => {
          require_global_utils2.unregisterGlobal(API_NAME, self2);
        };
        self2.createComponentLogger = (options) => {
          return new require_ComponentLogger2.DiagComponentLogger(options);
        };
        self2.verbose = _logProxy("verbose");
        self2.debug = _logProxy("debug");
        self2.info = _logProxy("info");
        self2.warn = _logProxy("warn");
        self2.error = _logProxy("error");
      }
    };
    exports.DiagAPI = DiagAPI;
  }
});

// node_modules/@opentelemetry/api/dist/baggage/internal/baggage-impl.cjs
var require_baggage_impl = __commonJS({
  "node_modules/@opentelemetry/api/dist/baggage/internal/baggage-impl.cjs"(exports) {
    var BaggageImpl = class BaggageImpl2 {
      constructor(entries) {
        this._entries = entries ? new Map(entries) : /* @__PURE__ */ new Map();
      }
      getEntry(key) {
        const entry = this._entries.get(key);
        if (!entry) return;
        return Object.assign({}, entry);
      }
      getAllEntries() {
        return Array.from(this._entries.entries());
      }
      setEntry(key, entry) {
        const newBaggage = new BaggageImpl2(this._entries);
        newBaggage._entries.set(key, entry);
        return newBaggage;
      }
      removeEntry(key) {
        const newBaggage = new BaggageImpl2(this._entries);
        newBaggage._entries.delete(key);
        return newBaggage;
      }
      removeEntries(...keys) {
        const newBaggage = new BaggageImpl2(this._entries);
        for (const key of keys) newBaggage._entries.delete(key);
        return newBaggage;
      }
      clear() {
        return new BaggageImpl2();
      }
    };
    exports.BaggageImpl = BaggageImpl;
  }
});

// node_modules/@opentelemetry/api/dist/baggage/internal/symbol.cjs
var require_symbol = __commonJS({
  "node_modules/@opentelemetry/api/dist/baggage/internal/symbol.cjs"(exports) {
    var baggageEntryMetadataSymbol = /* @__PURE__ */ Symbol("BaggageEntryMetadata");
    exports.baggageEntryMetadataSymbol = baggageEntryMetadataSymbol;
  }
});

// node_modules/@opentelemetry/api/dist/baggage/utils.cjs
var require_utils = __commonJS({
  "node_modules/@opentelemetry/api/dist/baggage/utils.cjs"(exports) {
    var require_diag2 = require_diag();
    var require_baggage_impl2 = require_baggage_impl();
    var require_symbol2 = require_symbol();
    var diag = require_diag2.DiagAPI.instance();
    function createBaggage(entries = {}) {
      return new require_baggage_impl2.BaggageImpl(new Map(Object.entries(entries)));
    }
    function baggageEntryMetadataFromString(str) {
      if (typeof str !== "string") {
        diag.error(`Cannot create baggage metadata from unknown type: ${typeof str}`);
        str = "";
      }
      return {
        __TYPE__: require_symbol2.baggageEntryMetadataSymbol,
        toString() {
          return str;
        }
      };
    }
    exports.baggageEntryMetadataFromString = baggageEntryMetadataFromString;
    exports.createBaggage = createBaggage;
  }
});

// node_modules/@opentelemetry/api/dist/context/context.cjs
var require_context = __commonJS({
  "node_modules/@opentelemetry/api/dist/context/context.cjs"(exports) {
    function createContextKey(description) {
      return Symbol.for(description);
    }
    var ROOT_CONTEXT = new class BaseContext {
      /**
      * Construct a new context which inherits values from an optional parent context.
      *
      * @param parentContext a context from which to inherit values
      */
      constructor(parentContext) {
        const self2 = this;
        self2._currentContext = parentContext ? new Map(parentContext) : /* @__PURE__ */ new Map();
        self2.getValue = (key) => self2._currentContext.get(key);
        self2.setValue = (key, value) => {
          const context = new BaseContext(self2._currentContext);
          context._currentContext.set(key, value);
          return context;
        };
        self2.deleteValue = (key) => {
          const context = new BaseContext(self2._currentContext);
          context._currentContext.delete(key);
          return context;
        };
      }
    }();
    exports.ROOT_CONTEXT = ROOT_CONTEXT;
    exports.createContextKey = createContextKey;
  }
});

// node_modules/@opentelemetry/api/dist/diag/consoleLogger.cjs
var require_consoleLogger = __commonJS({
  "node_modules/@opentelemetry/api/dist/diag/consoleLogger.cjs"(exports) {
    var consoleMap = [
      {
        n: "error",
        c: "error"
      },
      {
        n: "warn",
        c: "warn"
      },
      {
        n: "info",
        c: "info"
      },
      {
        n: "debug",
        c: "debug"
      },
      {
        n: "verbose",
        c: "trace"
      }
    ];
    var _originalConsoleMethods = {};
    if (typeof console !== "undefined") {
      for (const key of [
        "error",
        "warn",
        "info",
        "debug",
        "trace",
        "log"
      ]) if (typeof console[key] === "function") _originalConsoleMethods[key] = console[key];
    }
    var DiagConsoleLogger = class {
      constructor() {
        function _consoleFunc(funcName) {
          return function(...args) {
            let theFunc = _originalConsoleMethods[funcName];
            if (typeof theFunc !== "function") theFunc = _originalConsoleMethods["log"];
            if (typeof theFunc !== "function" && console) {
              theFunc = console[funcName];
              if (typeof theFunc !== "function") theFunc = console.log;
            }
            if (typeof theFunc === "function") return theFunc.apply(console, args);
          };
        }
        for (let i = 0; i < consoleMap.length; i++) this[consoleMap[i].n] = _consoleFunc(consoleMap[i].c);
      }
    };
    exports.DiagConsoleLogger = DiagConsoleLogger;
    exports._originalConsoleMethods = _originalConsoleMethods;
  }
});

// node_modules/@opentelemetry/api/dist/metrics/NoopMeter.cjs
var require_NoopMeter = __commonJS({
  "node_modules/@opentelemetry/api/dist/metrics/NoopMeter.cjs"(exports) {
    var NoopMeter = class {
      constructor() {
      }
      /**
      * @see {@link Meter.createGauge}
      */
      createGauge(_name, _options) {
        return NOOP_GAUGE_METRIC;
      }
      /**
      * @see {@link Meter.createHistogram}
      */
      createHistogram(_name, _options) {
        return NOOP_HISTOGRAM_METRIC;
      }
      /**
      * @see {@link Meter.createCounter}
      */
      createCounter(_name, _options) {
        return NOOP_COUNTER_METRIC;
      }
      /**
      * @see {@link Meter.createUpDownCounter}
      */
      createUpDownCounter(_name, _options) {
        return NOOP_UP_DOWN_COUNTER_METRIC;
      }
      /**
      * @see {@link Meter.createObservableGauge}
      */
      createObservableGauge(_name, _options) {
        return NOOP_OBSERVABLE_GAUGE_METRIC;
      }
      /**
      * @see {@link Meter.createObservableCounter}
      */
      createObservableCounter(_name, _options) {
        return NOOP_OBSERVABLE_COUNTER_METRIC;
      }
      /**
      * @see {@link Meter.createObservableUpDownCounter}
      */
      createObservableUpDownCounter(_name, _options) {
        return NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC;
      }
      /**
      * @see {@link Meter.addBatchObservableCallback}
      */
      addBatchObservableCallback(_callback, _observables) {
      }
      /**
      * @see {@link Meter.removeBatchObservableCallback}
      */
      removeBatchObservableCallback(_callback) {
      }
    };
    var NoopMetric = class {
    };
    var NoopCounterMetric = class extends NoopMetric {
      add(_value, _attributes) {
      }
    };
    var NoopUpDownCounterMetric = class extends NoopMetric {
      add(_value, _attributes) {
      }
    };
    var NoopGaugeMetric = class extends NoopMetric {
      record(_value, _attributes) {
      }
    };
    var NoopHistogramMetric = class extends NoopMetric {
      record(_value, _attributes) {
      }
    };
    var NoopObservableMetric = class {
      addCallback(_callback) {
      }
      removeCallback(_callback) {
      }
    };
    var NoopObservableCounterMetric = class extends NoopObservableMetric {
    };
    var NoopObservableGaugeMetric = class extends NoopObservableMetric {
    };
    var NoopObservableUpDownCounterMetric = class extends NoopObservableMetric {
    };
    var NOOP_METER = new NoopMeter();
    var NOOP_COUNTER_METRIC = new NoopCounterMetric();
    var NOOP_GAUGE_METRIC = new NoopGaugeMetric();
    var NOOP_HISTOGRAM_METRIC = new NoopHistogramMetric();
    var NOOP_UP_DOWN_COUNTER_METRIC = new NoopUpDownCounterMetric();
    var NOOP_OBSERVABLE_COUNTER_METRIC = new NoopObservableCounterMetric();
    var NOOP_OBSERVABLE_GAUGE_METRIC = new NoopObservableGaugeMetric();
    var NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC = new NoopObservableUpDownCounterMetric();
    function createNoopMeter() {
      return NOOP_METER;
    }
    exports.NOOP_COUNTER_METRIC = NOOP_COUNTER_METRIC;
    exports.NOOP_GAUGE_METRIC = NOOP_GAUGE_METRIC;
    exports.NOOP_HISTOGRAM_METRIC = NOOP_HISTOGRAM_METRIC;
    exports.NOOP_METER = NOOP_METER;
    exports.NOOP_OBSERVABLE_COUNTER_METRIC = NOOP_OBSERVABLE_COUNTER_METRIC;
    exports.NOOP_OBSERVABLE_GAUGE_METRIC = NOOP_OBSERVABLE_GAUGE_METRIC;
    exports.NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC = NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC;
    exports.NOOP_UP_DOWN_COUNTER_METRIC = NOOP_UP_DOWN_COUNTER_METRIC;
    exports.NoopCounterMetric = NoopCounterMetric;
    exports.NoopGaugeMetric = NoopGaugeMetric;
    exports.NoopHistogramMetric = NoopHistogramMetric;
    exports.NoopMeter = NoopMeter;
    exports.NoopMetric = NoopMetric;
    exports.NoopObservableCounterMetric = NoopObservableCounterMetric;
    exports.NoopObservableGaugeMetric = NoopObservableGaugeMetric;
    exports.NoopObservableMetric = NoopObservableMetric;
    exports.NoopObservableUpDownCounterMetric = NoopObservableUpDownCounterMetric;
    exports.NoopUpDownCounterMetric = NoopUpDownCounterMetric;
    exports.createNoopMeter = createNoopMeter;
  }
});

// node_modules/@opentelemetry/api/dist/metrics/Metric.cjs
var require_Metric = __commonJS({
  "node_modules/@opentelemetry/api/dist/metrics/Metric.cjs"(exports) {
    var ValueType = /* @__PURE__ */ (function(ValueType2) {
      ValueType2[ValueType2["INT"] = 0] = "INT";
      ValueType2[ValueType2["DOUBLE"] = 1] = "DOUBLE";
      return ValueType2;
    })({});
    exports.ValueType = ValueType;
  }
});

// node_modules/@opentelemetry/api/dist/logs/NoopLogger.cjs
var require_NoopLogger = __commonJS({
  "node_modules/@opentelemetry/api/dist/logs/NoopLogger.cjs"(exports) {
    var NoopLogger = class {
      emit(_logRecord) {
      }
      enabled() {
        return false;
      }
    };
    var NOOP_LOGGER = new NoopLogger();
    function createNoopLogger() {
      return NOOP_LOGGER;
    }
    exports.NOOP_LOGGER = NOOP_LOGGER;
    exports.NoopLogger = NoopLogger;
    exports.createNoopLogger = createNoopLogger;
  }
});

// node_modules/@opentelemetry/api/dist/logs/LogRecord.cjs
var require_LogRecord = __commonJS({
  "node_modules/@opentelemetry/api/dist/logs/LogRecord.cjs"(exports) {
    var SeverityNumber = /* @__PURE__ */ (function(SeverityNumber2) {
      SeverityNumber2[SeverityNumber2["UNSPECIFIED"] = 0] = "UNSPECIFIED";
      SeverityNumber2[SeverityNumber2["TRACE"] = 1] = "TRACE";
      SeverityNumber2[SeverityNumber2["TRACE2"] = 2] = "TRACE2";
      SeverityNumber2[SeverityNumber2["TRACE3"] = 3] = "TRACE3";
      SeverityNumber2[SeverityNumber2["TRACE4"] = 4] = "TRACE4";
      SeverityNumber2[SeverityNumber2["DEBUG"] = 5] = "DEBUG";
      SeverityNumber2[SeverityNumber2["DEBUG2"] = 6] = "DEBUG2";
      SeverityNumber2[SeverityNumber2["DEBUG3"] = 7] = "DEBUG3";
      SeverityNumber2[SeverityNumber2["DEBUG4"] = 8] = "DEBUG4";
      SeverityNumber2[SeverityNumber2["INFO"] = 9] = "INFO";
      SeverityNumber2[SeverityNumber2["INFO2"] = 10] = "INFO2";
      SeverityNumber2[SeverityNumber2["INFO3"] = 11] = "INFO3";
      SeverityNumber2[SeverityNumber2["INFO4"] = 12] = "INFO4";
      SeverityNumber2[SeverityNumber2["WARN"] = 13] = "WARN";
      SeverityNumber2[SeverityNumber2["WARN2"] = 14] = "WARN2";
      SeverityNumber2[SeverityNumber2["WARN3"] = 15] = "WARN3";
      SeverityNumber2[SeverityNumber2["WARN4"] = 16] = "WARN4";
      SeverityNumber2[SeverityNumber2["ERROR"] = 17] = "ERROR";
      SeverityNumber2[SeverityNumber2["ERROR2"] = 18] = "ERROR2";
      SeverityNumber2[SeverityNumber2["ERROR3"] = 19] = "ERROR3";
      SeverityNumber2[SeverityNumber2["ERROR4"] = 20] = "ERROR4";
      SeverityNumber2[SeverityNumber2["FATAL"] = 21] = "FATAL";
      SeverityNumber2[SeverityNumber2["FATAL2"] = 22] = "FATAL2";
      SeverityNumber2[SeverityNumber2["FATAL3"] = 23] = "FATAL3";
      SeverityNumber2[SeverityNumber2["FATAL4"] = 24] = "FATAL4";
      return SeverityNumber2;
    })({});
    exports.SeverityNumber = SeverityNumber;
  }
});

// node_modules/@opentelemetry/api/dist/propagation/TextMapPropagator.cjs
var require_TextMapPropagator = __commonJS({
  "node_modules/@opentelemetry/api/dist/propagation/TextMapPropagator.cjs"(exports) {
    var defaultTextMapGetter = {
      get(carrier, key) {
        if (carrier == null) return;
        return carrier[key];
      },
      keys(carrier) {
        if (carrier == null) return [];
        return Object.keys(carrier);
      }
    };
    var defaultTextMapSetter = { set(carrier, key, value) {
      if (carrier == null) return;
      carrier[key] = value;
    } };
    exports.defaultTextMapGetter = defaultTextMapGetter;
    exports.defaultTextMapSetter = defaultTextMapSetter;
  }
});

// node_modules/@opentelemetry/api/dist/trace/trace_flags.cjs
var require_trace_flags = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/trace_flags.cjs"(exports) {
    var TraceFlags = /* @__PURE__ */ (function(TraceFlags2) {
      TraceFlags2[TraceFlags2["NONE"] = 0] = "NONE";
      TraceFlags2[TraceFlags2["SAMPLED"] = 1] = "SAMPLED";
      return TraceFlags2;
    })({});
    exports.TraceFlags = TraceFlags;
  }
});

// node_modules/@opentelemetry/api/dist/trace/invalid-span-constants.cjs
var require_invalid_span_constants = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/invalid-span-constants.cjs"(exports) {
    require_trace_flags();
    var INVALID_SPANID = "0000000000000000";
    var INVALID_TRACEID = "00000000000000000000000000000000";
    var INVALID_SPAN_CONTEXT = {
      traceId: INVALID_TRACEID,
      spanId: INVALID_SPANID,
      traceFlags: 0
    };
    exports.INVALID_SPANID = INVALID_SPANID;
    exports.INVALID_SPAN_CONTEXT = INVALID_SPAN_CONTEXT;
    exports.INVALID_TRACEID = INVALID_TRACEID;
  }
});

// node_modules/@opentelemetry/api/dist/trace/NonRecordingSpan.cjs
var require_NonRecordingSpan = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/NonRecordingSpan.cjs"(exports) {
    var require_invalid_span_constants2 = require_invalid_span_constants();
    var NonRecordingSpan = class {
      constructor(spanContext = require_invalid_span_constants2.INVALID_SPAN_CONTEXT) {
        this._spanContext = spanContext;
      }
      spanContext() {
        return this._spanContext;
      }
      setAttribute(_key, _value) {
        return this;
      }
      setAttributes(_attributes) {
        return this;
      }
      addEvent(_name, _attributes) {
        return this;
      }
      addLink(_link) {
        return this;
      }
      addLinks(_links) {
        return this;
      }
      setStatus(_status) {
        return this;
      }
      updateName(_name) {
        return this;
      }
      end(_endTime) {
      }
      isRecording() {
        return false;
      }
      recordException(_exception, _time) {
      }
    };
    exports.NonRecordingSpan = NonRecordingSpan;
  }
});

// node_modules/@opentelemetry/api/dist/trace/spancontext-utils.cjs
var require_spancontext_utils = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/spancontext-utils.cjs"(exports) {
    require_invalid_span_constants();
    var require_NonRecordingSpan2 = require_NonRecordingSpan();
    var isHex = new Uint8Array([
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      1,
      1,
      1,
      1,
      1,
      1,
      1,
      1,
      1,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      1,
      1,
      1,
      1,
      1,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      1,
      1,
      1,
      1,
      1
    ]);
    function isValidHex(id, length) {
      if (typeof id !== "string" || id.length !== length) return false;
      let r = 0;
      for (let i = 0; i < id.length; i += 4) r += (isHex[id.charCodeAt(i)] | 0) + (isHex[id.charCodeAt(i + 1)] | 0) + (isHex[id.charCodeAt(i + 2)] | 0) + (isHex[id.charCodeAt(i + 3)] | 0);
      return r === length;
    }
    function isValidTraceId(traceId) {
      return isValidHex(traceId, 32) && traceId !== "00000000000000000000000000000000";
    }
    function isValidSpanId(spanId) {
      return isValidHex(spanId, 16) && spanId !== "0000000000000000";
    }
    function isSpanContextValid(spanContext) {
      return isValidTraceId(spanContext.traceId) && isValidSpanId(spanContext.spanId);
    }
    function wrapSpanContext(spanContext) {
      return new require_NonRecordingSpan2.NonRecordingSpan(spanContext);
    }
    exports.isSpanContextValid = isSpanContextValid;
    exports.isValidSpanId = isValidSpanId;
    exports.isValidTraceId = isValidTraceId;
    exports.wrapSpanContext = wrapSpanContext;
  }
});

// node_modules/@opentelemetry/api/dist/context/NoopContextManager.cjs
var require_NoopContextManager = __commonJS({
  "node_modules/@opentelemetry/api/dist/context/NoopContextManager.cjs"(exports) {
    var require_context3 = require_context();
    var NoopContextManager = class {
      active() {
        return require_context3.ROOT_CONTEXT;
      }
      with(_context, fn, thisArg, ...args) {
        return fn.call(thisArg, ...args);
      }
      bind(_context, target) {
        return target;
      }
      enable() {
        return this;
      }
      disable() {
        return this;
      }
      /** @experimental This API is experimental and may change in minor releases without prior notice. */
      attach(_context) {
        return { dispose() {
        } };
      }
    };
    exports.NoopContextManager = NoopContextManager;
  }
});

// node_modules/@opentelemetry/api/dist/api/context.cjs
var require_context2 = __commonJS({
  "node_modules/@opentelemetry/api/dist/api/context.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var require_diag2 = require_diag();
    var require_NoopContextManager2 = require_NoopContextManager();
    var API_NAME = "context";
    var NOOP_CONTEXT_MANAGER = new require_NoopContextManager2.NoopContextManager();
    var NOOP_TOKEN = Object.freeze({ dispose: () => {
    } });
    var ContextAPI = class ContextAPI2 {
      /** Empty private constructor prevents end users from constructing a new instance of the API */
      constructor() {
        this._attachUnsupportedWarned = false;
      }
      /** Get the singleton instance of the Context API */
      static getInstance() {
        if (!this._instance) this._instance = new ContextAPI2();
        return this._instance;
      }
      /**
      * Set the current context manager.
      *
      * @returns true if the context manager was successfully registered, else false
      */
      setGlobalContextManager(contextManager) {
        return require_global_utils2.registerGlobal(API_NAME, contextManager, require_diag2.DiagAPI.instance());
      }
      /**
      * Get the currently active context
      */
      active() {
        return this._getContextManager().active();
      }
      /**
      * Execute a function with an active context
      *
      * @param context context to be active during function execution
      * @param fn function to execute in a context
      * @param thisArg optional receiver to be used for calling fn
      * @param args optional arguments forwarded to fn
      */
      with(context, fn, thisArg, ...args) {
        return this._getContextManager().with(context, fn, thisArg, ...args);
      }
      /**
      * Bind a context to a target function or event emitter
      *
      * @param context context to bind to the event emitter or function. Defaults to the currently active context
      * @param target function or event emitter to bind
      */
      bind(context, target) {
        return this._getContextManager().bind(context, target);
      }
      /**
      * Imperatively sets `context` as active, returning a {@link ContextManagementToken} whose
      * {@link ContextManagementToken.dispose} restores the previous context.
      *
      * This is a delicate, low-level API - prefer {@link with}/{@link bind}, which
      * restore context automatically. Use `attach` only to bridge callback
      * boundaries that `with` cannot wrap. Call `token.dispose()` when the
      * operation is done.
      *
      * **Caveat for async functions:** If called inside an async function before
      * the first `await`, the context change may leak into the caller's context
      * and remain active there. Prefer {@link with} for async code.
      *
      * Support is best-effort and varies by the active ContextManager (see
      * {@link ContextManager.attach}); if it does not implement `attach`, this logs
      * a warning and returns a no-op token.
      *
      * @param context The Context to attach
      * @returns A {@link ContextManagementToken} whose dispose() restores the previous Context
      * @since 1.10.0
      * @experimental This API is experimental and may change in minor releases without prior notice.
      */
      attach(context) {
        const contextManager = this._getContextManager();
        if (contextManager.attach) return contextManager.attach(context);
        if (!this._attachUnsupportedWarned) {
          this._attachUnsupportedWarned = true;
          require_diag2.DiagAPI.instance().warn("The current ContextManager does not implement attach(). The context will not be attached. Use a ContextManager that supports attach() (e.g. AsyncLocalStorageContextManager) or use with()/bind() instead.");
        }
        return NOOP_TOKEN;
      }
      _getContextManager() {
        return require_global_utils2.getGlobal(API_NAME) || NOOP_CONTEXT_MANAGER;
      }
      /** Disable and remove the global context manager */
      disable() {
        this._getContextManager().disable();
        require_global_utils2.unregisterGlobal(API_NAME, require_diag2.DiagAPI.instance());
      }
    };
    exports.ContextAPI = ContextAPI;
  }
});

// node_modules/@opentelemetry/api/dist/trace/context-utils.cjs
var require_context_utils = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/context-utils.cjs"(exports) {
    var require_context3 = require_context();
    var require_context$1 = require_context2();
    var require_NonRecordingSpan2 = require_NonRecordingSpan();
    var SPAN_KEY = require_context3.createContextKey("OpenTelemetry Context Key SPAN");
    function getSpan(context) {
      return context.getValue(SPAN_KEY) || void 0;
    }
    function getActiveSpan() {
      return getSpan(require_context$1.ContextAPI.getInstance().active());
    }
    function setSpan(context, span) {
      return context.setValue(SPAN_KEY, span);
    }
    function deleteSpan(context) {
      return context.deleteValue(SPAN_KEY);
    }
    function setSpanContext(context, spanContext) {
      return setSpan(context, new require_NonRecordingSpan2.NonRecordingSpan(spanContext));
    }
    function getSpanContext(context) {
      var _getSpan;
      return (_getSpan = getSpan(context)) === null || _getSpan === void 0 ? void 0 : _getSpan.spanContext();
    }
    exports.deleteSpan = deleteSpan;
    exports.getActiveSpan = getActiveSpan;
    exports.getSpan = getSpan;
    exports.getSpanContext = getSpanContext;
    exports.setSpan = setSpan;
    exports.setSpanContext = setSpanContext;
  }
});

// node_modules/@opentelemetry/api/dist/trace/NoopTracer.cjs
var require_NoopTracer = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/NoopTracer.cjs"(exports) {
    var require_context3 = require_context2();
    var require_NonRecordingSpan2 = require_NonRecordingSpan();
    var require_context_utils2 = require_context_utils();
    var require_spancontext_utils2 = require_spancontext_utils();
    var contextApi = require_context3.ContextAPI.getInstance();
    var NoopTracer = class {
      startSpan(name, options, context = contextApi.active()) {
        if (Boolean(options === null || options === void 0 ? void 0 : options.root)) return new require_NonRecordingSpan2.NonRecordingSpan();
        const parentFromContext = context && require_context_utils2.getSpanContext(context);
        if (isSpanContext(parentFromContext) && require_spancontext_utils2.isSpanContextValid(parentFromContext)) return new require_NonRecordingSpan2.NonRecordingSpan(parentFromContext);
        else return new require_NonRecordingSpan2.NonRecordingSpan();
      }
      startActiveSpan(name, arg2, arg3, arg4) {
        var _ctx;
        let opts;
        let ctx;
        let fn;
        if (arguments.length < 2) return;
        else if (arguments.length === 2) fn = arg2;
        else if (arguments.length === 3) {
          opts = arg2;
          fn = arg3;
        } else {
          opts = arg2;
          ctx = arg3;
          fn = arg4;
        }
        const parentContext = (_ctx = ctx) !== null && _ctx !== void 0 ? _ctx : contextApi.active();
        const span = this.startSpan(name, opts, parentContext);
        const contextWithSpanSet = require_context_utils2.setSpan(parentContext, span);
        return contextApi.with(contextWithSpanSet, fn, void 0, span);
      }
    };
    function isSpanContext(spanContext) {
      return spanContext !== null && typeof spanContext === "object" && "spanId" in spanContext && typeof spanContext["spanId"] === "string" && "traceId" in spanContext && typeof spanContext["traceId"] === "string" && "traceFlags" in spanContext && typeof spanContext["traceFlags"] === "number";
    }
    exports.NoopTracer = NoopTracer;
  }
});

// node_modules/@opentelemetry/api/dist/trace/ProxyTracer.cjs
var require_ProxyTracer = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/ProxyTracer.cjs"(exports) {
    var NOOP_TRACER = new (require_NoopTracer()).NoopTracer();
    var ProxyTracer = class {
      constructor(provider, name, version, options) {
        this._provider = provider;
        this.name = name;
        this.version = version;
        this.options = options;
      }
      startSpan(name, options, context) {
        return this._getTracer().startSpan(name, options, context);
      }
      startActiveSpan(_name, _options, _context, _fn) {
        const tracer = this._getTracer();
        return Reflect.apply(tracer.startActiveSpan, tracer, arguments);
      }
      /**
      * Try to get a tracer from the proxy tracer provider.
      * If the proxy tracer provider has no delegate, return a noop tracer.
      */
      _getTracer() {
        if (this._delegate) return this._delegate;
        const tracer = this._provider.getDelegateTracer(this.name, this.version, this.options);
        if (!tracer) return NOOP_TRACER;
        this._delegate = tracer;
        return this._delegate;
      }
    };
    exports.ProxyTracer = ProxyTracer;
  }
});

// node_modules/@opentelemetry/api/dist/trace/span_kind.cjs
var require_span_kind = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/span_kind.cjs"(exports) {
    var SpanKind = /* @__PURE__ */ (function(SpanKind2) {
      SpanKind2[SpanKind2["INTERNAL"] = 0] = "INTERNAL";
      SpanKind2[SpanKind2["SERVER"] = 1] = "SERVER";
      SpanKind2[SpanKind2["CLIENT"] = 2] = "CLIENT";
      SpanKind2[SpanKind2["PRODUCER"] = 3] = "PRODUCER";
      SpanKind2[SpanKind2["CONSUMER"] = 4] = "CONSUMER";
      return SpanKind2;
    })({});
    exports.SpanKind = SpanKind;
  }
});

// node_modules/@opentelemetry/api/dist/trace/status.cjs
var require_status = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/status.cjs"(exports) {
    var SpanStatusCode = /* @__PURE__ */ (function(SpanStatusCode2) {
      SpanStatusCode2[SpanStatusCode2["UNSET"] = 0] = "UNSET";
      SpanStatusCode2[SpanStatusCode2["OK"] = 1] = "OK";
      SpanStatusCode2[SpanStatusCode2["ERROR"] = 2] = "ERROR";
      return SpanStatusCode2;
    })({});
    exports.SpanStatusCode = SpanStatusCode;
  }
});

// node_modules/@opentelemetry/api/dist/trace/internal/tracestate-validators.cjs
var require_tracestate_validators = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/internal/tracestate-validators.cjs"(exports) {
    var VALID_KEY_CHAR_RANGE = "[_0-9a-z-*/]";
    var VALID_KEY_REGEX = new RegExp(`^(?:${`[a-z]${VALID_KEY_CHAR_RANGE}{0,255}`}|${`[a-z0-9]${VALID_KEY_CHAR_RANGE}{0,240}@[a-z]${VALID_KEY_CHAR_RANGE}{0,13}`})$`);
    var VALID_VALUE_BASE_REGEX = /^[ -~]{0,255}[!-~]$/;
    var INVALID_VALUE_COMMA_EQUAL_REGEX = /,|=/;
    function validateKey(key) {
      return VALID_KEY_REGEX.test(key);
    }
    function validateValue(value) {
      return VALID_VALUE_BASE_REGEX.test(value) && !INVALID_VALUE_COMMA_EQUAL_REGEX.test(value);
    }
    exports.validateKey = validateKey;
    exports.validateValue = validateValue;
  }
});

// node_modules/@opentelemetry/api/dist/trace/internal/tracestate-impl.cjs
var require_tracestate_impl = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/internal/tracestate-impl.cjs"(exports) {
    var require_tracestate_validators2 = require_tracestate_validators();
    var MAX_TRACE_STATE_ITEMS = 32;
    var MAX_TRACE_STATE_LEN = 512;
    var LIST_MEMBERS_SEPARATOR = ",";
    var LIST_MEMBER_KEY_VALUE_SPLITTER = "=";
    var TraceStateImpl = class TraceStateImpl2 {
      constructor(rawTraceState) {
        this._internalState = /* @__PURE__ */ new Map();
        if (rawTraceState) this._parse(rawTraceState);
      }
      set(key, value) {
        const currValue = this._internalState.get(key);
        let newLength = this.serialize().length;
        if (typeof currValue === "string") newLength += value.length - currValue.length;
        else {
          if (this._internalState.size >= MAX_TRACE_STATE_ITEMS) return this;
          newLength += key.length + value.length + (this._internalState.size > 0 ? 2 : 1);
        }
        if (newLength > MAX_TRACE_STATE_LEN) return this;
        const traceState = this._clone();
        if (traceState._internalState.has(key)) traceState._internalState.delete(key);
        traceState._internalState.set(key, value);
        return traceState;
      }
      unset(key) {
        const traceState = this._clone();
        traceState._internalState.delete(key);
        return traceState;
      }
      get(key) {
        return this._internalState.get(key);
      }
      serialize() {
        return Array.from(this._internalState.keys()).reduceRight((agg, key) => {
          agg.push(key + LIST_MEMBER_KEY_VALUE_SPLITTER + this.get(key));
          return agg;
        }, []).join(LIST_MEMBERS_SEPARATOR);
      }
      _parse(rawTraceState) {
        if (rawTraceState.length > MAX_TRACE_STATE_LEN) return;
        this._internalState = rawTraceState.split(LIST_MEMBERS_SEPARATOR).reduceRight((agg, part) => {
          const listMember = part.trim();
          const i = listMember.indexOf(LIST_MEMBER_KEY_VALUE_SPLITTER);
          if (i !== -1) {
            const key = listMember.slice(0, i);
            const value = listMember.slice(i + 1, part.length);
            if (require_tracestate_validators2.validateKey(key) && require_tracestate_validators2.validateValue(value)) agg.set(key, value);
          }
          return agg;
        }, /* @__PURE__ */ new Map());
        if (this._internalState.size > MAX_TRACE_STATE_ITEMS) this._internalState = new Map(Array.from(this._internalState.entries()).reverse().slice(0, MAX_TRACE_STATE_ITEMS));
      }
      _keys() {
        return Array.from(this._internalState.keys()).reverse();
      }
      _clone() {
        const traceState = new TraceStateImpl2();
        traceState._internalState = new Map(this._internalState);
        return traceState;
      }
    };
    exports.TraceStateImpl = TraceStateImpl;
  }
});

// node_modules/@opentelemetry/api/dist/trace/internal/utils.cjs
var require_utils2 = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/internal/utils.cjs"(exports) {
    var require_tracestate_impl2 = require_tracestate_impl();
    function createTraceState(rawTraceState) {
      return new require_tracestate_impl2.TraceStateImpl(rawTraceState);
    }
    exports.createTraceState = createTraceState;
  }
});

// node_modules/@opentelemetry/api/dist/trace/NoopTracerProvider.cjs
var require_NoopTracerProvider = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/NoopTracerProvider.cjs"(exports) {
    var require_NoopTracer2 = require_NoopTracer();
    var NoopTracerProvider = class {
      getTracer(_name, _version, _options) {
        return new require_NoopTracer2.NoopTracer();
      }
    };
    exports.NoopTracerProvider = NoopTracerProvider;
  }
});

// node_modules/@opentelemetry/api/dist/trace/ProxyTracerProvider.cjs
var require_ProxyTracerProvider = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/ProxyTracerProvider.cjs"(exports) {
    var require_ProxyTracer2 = require_ProxyTracer();
    var NOOP_TRACER_PROVIDER = new (require_NoopTracerProvider()).NoopTracerProvider();
    var ProxyTracerProvider = class {
      /**
      * Get a {@link ProxyTracer}
      */
      getTracer(name, version, options) {
        var _this$getDelegateTrac;
        return (_this$getDelegateTrac = this.getDelegateTracer(name, version, options)) !== null && _this$getDelegateTrac !== void 0 ? _this$getDelegateTrac : new require_ProxyTracer2.ProxyTracer(this, name, version, options);
      }
      getDelegate() {
        var _this$_delegate;
        return (_this$_delegate = this._delegate) !== null && _this$_delegate !== void 0 ? _this$_delegate : NOOP_TRACER_PROVIDER;
      }
      /**
      * Set the delegate tracer provider
      */
      setDelegate(delegate) {
        this._delegate = delegate;
      }
      getDelegateTracer(name, version, options) {
        var _this$_delegate2;
        return (_this$_delegate2 = this._delegate) === null || _this$_delegate2 === void 0 ? void 0 : _this$_delegate2.getTracer(name, version, options);
      }
    };
    exports.ProxyTracerProvider = ProxyTracerProvider;
  }
});

// node_modules/@opentelemetry/api/dist/trace/SamplingResult.cjs
var require_SamplingResult = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace/SamplingResult.cjs"(exports) {
    var SamplingDecision = /* @__PURE__ */ (function(SamplingDecision2) {
      SamplingDecision2[SamplingDecision2["NOT_RECORD"] = 0] = "NOT_RECORD";
      SamplingDecision2[SamplingDecision2["RECORD"] = 1] = "RECORD";
      SamplingDecision2[SamplingDecision2["RECORD_AND_SAMPLED"] = 2] = "RECORD_AND_SAMPLED";
      return SamplingDecision2;
    })({});
    exports.SamplingDecision = SamplingDecision;
  }
});

// node_modules/@opentelemetry/api/dist/context-api.cjs
var require_context_api = __commonJS({
  "node_modules/@opentelemetry/api/dist/context-api.cjs"(exports) {
    var context = require_context2().ContextAPI.getInstance();
    exports.context = context;
  }
});

// node_modules/@opentelemetry/api/dist/diag-api.cjs
var require_diag_api = __commonJS({
  "node_modules/@opentelemetry/api/dist/diag-api.cjs"(exports) {
    var diag = require_diag().DiagAPI.instance();
    exports.diag = diag;
  }
});

// node_modules/@opentelemetry/api/dist/logs/NoopLoggerProvider.cjs
var require_NoopLoggerProvider = __commonJS({
  "node_modules/@opentelemetry/api/dist/logs/NoopLoggerProvider.cjs"(exports) {
    var require_NoopLogger2 = require_NoopLogger();
    var NoopLoggerProvider = class {
      getLogger(_name, _version, _options) {
        return new require_NoopLogger2.NoopLogger();
      }
    };
    var NOOP_LOGGER_PROVIDER = new NoopLoggerProvider();
    exports.NOOP_LOGGER_PROVIDER = NOOP_LOGGER_PROVIDER;
    exports.NoopLoggerProvider = NoopLoggerProvider;
  }
});

// node_modules/@opentelemetry/api/dist/logs/ProxyLogger.cjs
var require_ProxyLogger = __commonJS({
  "node_modules/@opentelemetry/api/dist/logs/ProxyLogger.cjs"(exports) {
    var require_NoopLogger2 = require_NoopLogger();
    var ProxyLogger = class {
      constructor(provider, name, version, options) {
        this._provider = provider;
        this.name = name;
        this.version = version;
        this.options = options;
      }
      /**
      * Emit a log record. This method should only be used by log appenders.
      *
      * @param logRecord
      */
      emit(logRecord) {
        this._getLogger().emit(logRecord);
      }
      enabled(options) {
        return this._getLogger().enabled(options);
      }
      /**
      * Try to get a logger from the proxy logger provider.
      * If the proxy logger provider has no delegate, return a noop logger.
      */
      _getLogger() {
        if (this._delegate) return this._delegate;
        const logger = this._provider._getDelegateLogger(this.name, this.version, this.options);
        if (!logger) return require_NoopLogger2.NOOP_LOGGER;
        this._delegate = logger;
        return this._delegate;
      }
    };
    exports.ProxyLogger = ProxyLogger;
  }
});

// node_modules/@opentelemetry/api/dist/logs/ProxyLoggerProvider.cjs
var require_ProxyLoggerProvider = __commonJS({
  "node_modules/@opentelemetry/api/dist/logs/ProxyLoggerProvider.cjs"(exports) {
    var require_NoopLoggerProvider2 = require_NoopLoggerProvider();
    var require_ProxyLogger2 = require_ProxyLogger();
    var ProxyLoggerProvider = class {
      getLogger(name, version, options) {
        var _this$_getDelegateLog;
        return (_this$_getDelegateLog = this._getDelegateLogger(name, version, options)) !== null && _this$_getDelegateLog !== void 0 ? _this$_getDelegateLog : new require_ProxyLogger2.ProxyLogger(this, name, version, options);
      }
      /**
      * Get the delegate logger provider.
      * Used by tests only.
      * @internal
      */
      _getDelegate() {
        var _this$_delegate;
        return (_this$_delegate = this._delegate) !== null && _this$_delegate !== void 0 ? _this$_delegate : require_NoopLoggerProvider2.NOOP_LOGGER_PROVIDER;
      }
      /**
      * Set the delegate logger provider
      * @internal
      */
      _setDelegate(delegate) {
        this._delegate = delegate;
      }
      /**
      * @internal
      */
      _getDelegateLogger(name, version, options) {
        var _this$_delegate2;
        return (_this$_delegate2 = this._delegate) === null || _this$_delegate2 === void 0 ? void 0 : _this$_delegate2.getLogger(name, version, options);
      }
    };
    exports.ProxyLoggerProvider = ProxyLoggerProvider;
  }
});

// node_modules/@opentelemetry/api/dist/api/logs.cjs
var require_logs = __commonJS({
  "node_modules/@opentelemetry/api/dist/api/logs.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var require_diag2 = require_diag();
    var require_ProxyLoggerProvider2 = require_ProxyLoggerProvider();
    var API_NAME = "logs";
    var LogsAPI = class LogsAPI2 {
      /** Empty private constructor prevents end users from constructing a new instance of the API */
      constructor() {
        this._proxyLoggerProvider = new require_ProxyLoggerProvider2.ProxyLoggerProvider();
      }
      /** Get the singleton instance of the Logs API */
      static getInstance() {
        if (!this._instance) this._instance = new LogsAPI2();
        return this._instance;
      }
      setGlobalLoggerProvider(provider) {
        const success = require_global_utils2.registerGlobal(API_NAME, provider, require_diag2.DiagAPI.instance());
        if (success) this._proxyLoggerProvider._setDelegate(provider);
        return success;
      }
      /**
      * Returns the global logger provider.
      *
      * @returns LoggerProvider
      */
      getLoggerProvider() {
        return require_global_utils2.getGlobal(API_NAME) || this._proxyLoggerProvider;
      }
      /**
      * Returns a Logger, creating one if one with the given name, version,
      * schemaUrl, and attributes is not already created.
      *
      * Getting a Logger may be expensive, especially when `attributes` are
      * provided. Reuse Logger instances where possible instead of calling
      * `getLogger()` on hot paths.
      *
      * @param name The name of the logger or instrumentation library.
      * @param version The version of the logger or instrumentation library.
      * @param options The options of the logger or instrumentation library.
      * @returns {@link Logger}
      */
      getLogger(name, version, options) {
        return this.getLoggerProvider().getLogger(name, version, options);
      }
      /** Remove the global logger provider */
      disable() {
        require_global_utils2.unregisterGlobal(API_NAME, require_diag2.DiagAPI.instance());
        this._proxyLoggerProvider = new require_ProxyLoggerProvider2.ProxyLoggerProvider();
      }
    };
    exports.LogsAPI = LogsAPI;
  }
});

// node_modules/@opentelemetry/api/dist/logs-api.cjs
var require_logs_api = __commonJS({
  "node_modules/@opentelemetry/api/dist/logs-api.cjs"(exports) {
    var logs = require_logs().LogsAPI.getInstance();
    exports.logs = logs;
  }
});

// node_modules/@opentelemetry/api/dist/metrics/NoopMeterProvider.cjs
var require_NoopMeterProvider = __commonJS({
  "node_modules/@opentelemetry/api/dist/metrics/NoopMeterProvider.cjs"(exports) {
    var require_NoopMeter2 = require_NoopMeter();
    var NoopMeterProvider = class {
      getMeter(_name, _version, _options) {
        return require_NoopMeter2.NOOP_METER;
      }
    };
    var NOOP_METER_PROVIDER = new NoopMeterProvider();
    exports.NOOP_METER_PROVIDER = NOOP_METER_PROVIDER;
    exports.NoopMeterProvider = NoopMeterProvider;
  }
});

// node_modules/@opentelemetry/api/dist/api/metrics.cjs
var require_metrics = __commonJS({
  "node_modules/@opentelemetry/api/dist/api/metrics.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var require_diag2 = require_diag();
    var require_NoopMeterProvider2 = require_NoopMeterProvider();
    var API_NAME = "metrics";
    var MetricsAPI = class MetricsAPI2 {
      /** Empty private constructor prevents end users from constructing a new instance of the API */
      constructor() {
      }
      /** Get the singleton instance of the Metrics API */
      static getInstance() {
        if (!this._instance) this._instance = new MetricsAPI2();
        return this._instance;
      }
      /**
      * Set the current global meter provider.
      * Returns true if the meter provider was successfully registered, else false.
      */
      setGlobalMeterProvider(provider) {
        return require_global_utils2.registerGlobal(API_NAME, provider, require_diag2.DiagAPI.instance());
      }
      /**
      * Returns the global meter provider.
      */
      getMeterProvider() {
        return require_global_utils2.getGlobal(API_NAME) || require_NoopMeterProvider2.NOOP_METER_PROVIDER;
      }
      /**
      * Returns a meter from the global meter provider.
      */
      getMeter(name, version, options) {
        return this.getMeterProvider().getMeter(name, version, options);
      }
      /** Remove the global meter provider */
      disable() {
        require_global_utils2.unregisterGlobal(API_NAME, require_diag2.DiagAPI.instance());
      }
    };
    exports.MetricsAPI = MetricsAPI;
  }
});

// node_modules/@opentelemetry/api/dist/metrics-api.cjs
var require_metrics_api = __commonJS({
  "node_modules/@opentelemetry/api/dist/metrics-api.cjs"(exports) {
    var metrics = require_metrics().MetricsAPI.getInstance();
    exports.metrics = metrics;
  }
});

// node_modules/@opentelemetry/api/dist/propagation/NoopTextMapPropagator.cjs
var require_NoopTextMapPropagator = __commonJS({
  "node_modules/@opentelemetry/api/dist/propagation/NoopTextMapPropagator.cjs"(exports) {
    var NoopTextMapPropagator = class {
      /** Noop inject function does nothing */
      inject(_context, _carrier) {
      }
      /** Noop extract function does nothing and returns the input context */
      extract(context, _carrier) {
        return context;
      }
      fields() {
        return [];
      }
    };
    exports.NoopTextMapPropagator = NoopTextMapPropagator;
  }
});

// node_modules/@opentelemetry/api/dist/baggage/context-helpers.cjs
var require_context_helpers = __commonJS({
  "node_modules/@opentelemetry/api/dist/baggage/context-helpers.cjs"(exports) {
    var require_context3 = require_context();
    var require_context$1 = require_context2();
    var BAGGAGE_KEY = require_context3.createContextKey("OpenTelemetry Baggage Key");
    function getBaggage(context) {
      return context.getValue(BAGGAGE_KEY) || void 0;
    }
    function getActiveBaggage() {
      return getBaggage(require_context$1.ContextAPI.getInstance().active());
    }
    function setBaggage(context, baggage) {
      return context.setValue(BAGGAGE_KEY, baggage);
    }
    function deleteBaggage(context) {
      return context.deleteValue(BAGGAGE_KEY);
    }
    exports.deleteBaggage = deleteBaggage;
    exports.getActiveBaggage = getActiveBaggage;
    exports.getBaggage = getBaggage;
    exports.setBaggage = setBaggage;
  }
});

// node_modules/@opentelemetry/api/dist/api/propagation.cjs
var require_propagation = __commonJS({
  "node_modules/@opentelemetry/api/dist/api/propagation.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var require_diag2 = require_diag();
    var require_utils3 = require_utils();
    var require_TextMapPropagator2 = require_TextMapPropagator();
    var require_NoopTextMapPropagator2 = require_NoopTextMapPropagator();
    var require_context_helpers2 = require_context_helpers();
    var API_NAME = "propagation";
    var NOOP_TEXT_MAP_PROPAGATOR = new require_NoopTextMapPropagator2.NoopTextMapPropagator();
    var PropagationAPI = class PropagationAPI2 {
      /** Empty private constructor prevents end users from constructing a new instance of the API */
      constructor() {
        this.createBaggage = require_utils3.createBaggage;
        this.getBaggage = require_context_helpers2.getBaggage;
        this.getActiveBaggage = require_context_helpers2.getActiveBaggage;
        this.setBaggage = require_context_helpers2.setBaggage;
        this.deleteBaggage = require_context_helpers2.deleteBaggage;
      }
      /** Get the singleton instance of the Propagator API */
      static getInstance() {
        if (!this._instance) this._instance = new PropagationAPI2();
        return this._instance;
      }
      /**
      * Set the current propagator.
      *
      * @returns true if the propagator was successfully registered, else false
      */
      setGlobalPropagator(propagator) {
        return require_global_utils2.registerGlobal(API_NAME, propagator, require_diag2.DiagAPI.instance());
      }
      /**
      * Inject context into a carrier to be propagated inter-process
      *
      * @param context Context carrying tracing data to inject
      * @param carrier carrier to inject context into
      * @param setter Function used to set values on the carrier
      */
      inject(context, carrier, setter = require_TextMapPropagator2.defaultTextMapSetter) {
        return this._getGlobalPropagator().inject(context, carrier, setter);
      }
      /**
      * Extract context from a carrier
      *
      * @param context Context which the newly created context will inherit from
      * @param carrier Carrier to extract context from
      * @param getter Function used to extract keys from a carrier
      */
      extract(context, carrier, getter = require_TextMapPropagator2.defaultTextMapGetter) {
        return this._getGlobalPropagator().extract(context, carrier, getter);
      }
      /**
      * Return a list of all fields which may be used by the propagator.
      */
      fields() {
        return this._getGlobalPropagator().fields();
      }
      /** Remove the global propagator */
      disable() {
        require_global_utils2.unregisterGlobal(API_NAME, require_diag2.DiagAPI.instance());
      }
      _getGlobalPropagator() {
        return require_global_utils2.getGlobal(API_NAME) || NOOP_TEXT_MAP_PROPAGATOR;
      }
    };
    exports.PropagationAPI = PropagationAPI;
  }
});

// node_modules/@opentelemetry/api/dist/propagation-api.cjs
var require_propagation_api = __commonJS({
  "node_modules/@opentelemetry/api/dist/propagation-api.cjs"(exports) {
    var propagation = require_propagation().PropagationAPI.getInstance();
    exports.propagation = propagation;
  }
});

// node_modules/@opentelemetry/api/dist/api/trace.cjs
var require_trace = __commonJS({
  "node_modules/@opentelemetry/api/dist/api/trace.cjs"(exports) {
    var require_global_utils2 = require_global_utils();
    var require_diag2 = require_diag();
    var require_context_utils2 = require_context_utils();
    var require_spancontext_utils2 = require_spancontext_utils();
    var require_ProxyTracerProvider2 = require_ProxyTracerProvider();
    var API_NAME = "trace";
    var TraceAPI = class TraceAPI2 {
      /** Empty private constructor prevents end users from constructing a new instance of the API */
      constructor() {
        this._proxyTracerProvider = new require_ProxyTracerProvider2.ProxyTracerProvider();
        this.wrapSpanContext = require_spancontext_utils2.wrapSpanContext;
        this.isSpanContextValid = require_spancontext_utils2.isSpanContextValid;
        this.deleteSpan = require_context_utils2.deleteSpan;
        this.getSpan = require_context_utils2.getSpan;
        this.getActiveSpan = require_context_utils2.getActiveSpan;
        this.getSpanContext = require_context_utils2.getSpanContext;
        this.setSpan = require_context_utils2.setSpan;
        this.setSpanContext = require_context_utils2.setSpanContext;
      }
      /** Get the singleton instance of the Trace API */
      static getInstance() {
        if (!this._instance) this._instance = new TraceAPI2();
        return this._instance;
      }
      /**
      * Set the current global tracer.
      *
      * @returns true if the tracer provider was successfully registered, else false
      */
      setGlobalTracerProvider(provider) {
        const success = require_global_utils2.registerGlobal(API_NAME, this._proxyTracerProvider, require_diag2.DiagAPI.instance());
        if (success) this._proxyTracerProvider.setDelegate(provider);
        return success;
      }
      /**
      * Returns the global tracer provider.
      */
      getTracerProvider() {
        return require_global_utils2.getGlobal(API_NAME) || this._proxyTracerProvider;
      }
      /**
      * Returns a tracer from the global tracer provider.
      */
      getTracer(name, version) {
        return this.getTracerProvider().getTracer(name, version);
      }
      /** Remove the global tracer provider */
      disable() {
        require_global_utils2.unregisterGlobal(API_NAME, require_diag2.DiagAPI.instance());
        this._proxyTracerProvider = new require_ProxyTracerProvider2.ProxyTracerProvider();
      }
    };
    exports.TraceAPI = TraceAPI;
  }
});

// node_modules/@opentelemetry/api/dist/trace-api.cjs
var require_trace_api = __commonJS({
  "node_modules/@opentelemetry/api/dist/trace-api.cjs"(exports) {
    var trace = require_trace().TraceAPI.getInstance();
    exports.trace = trace;
  }
});

// node_modules/@opentelemetry/api/dist/index.cjs
var require_dist = __commonJS({
  "node_modules/@opentelemetry/api/dist/index.cjs"(exports) {
    Object.defineProperties(exports, {
      __esModule: { value: true },
      [Symbol.toStringTag]: { value: "Module" }
    });
    var require_types2 = require_types();
    var require_utils3 = require_utils();
    var require_context3 = require_context();
    var require_consoleLogger2 = require_consoleLogger();
    var require_NoopMeter2 = require_NoopMeter();
    var require_Metric2 = require_Metric();
    var require_NoopLogger2 = require_NoopLogger();
    var require_LogRecord2 = require_LogRecord();
    var require_TextMapPropagator2 = require_TextMapPropagator();
    var require_trace_flags2 = require_trace_flags();
    var require_invalid_span_constants2 = require_invalid_span_constants();
    var require_spancontext_utils2 = require_spancontext_utils();
    var require_ProxyTracer2 = require_ProxyTracer();
    var require_span_kind2 = require_span_kind();
    var require_status2 = require_status();
    var require_utils$1 = require_utils2();
    var require_ProxyTracerProvider2 = require_ProxyTracerProvider();
    var require_SamplingResult2 = require_SamplingResult();
    var require_context_api2 = require_context_api();
    var require_diag_api2 = require_diag_api();
    var require_logs_api2 = require_logs_api();
    var require_metrics_api2 = require_metrics_api();
    var require_propagation_api2 = require_propagation_api();
    var require_trace_api2 = require_trace_api();
    var src_default = {
      context: require_context_api2.context,
      diag: require_diag_api2.diag,
      logs: require_logs_api2.logs,
      metrics: require_metrics_api2.metrics,
      propagation: require_propagation_api2.propagation,
      trace: require_trace_api2.trace
    };
    exports.DiagConsoleLogger = require_consoleLogger2.DiagConsoleLogger;
    exports.DiagLogLevel = require_types2.DiagLogLevel;
    exports.INVALID_SPANID = require_invalid_span_constants2.INVALID_SPANID;
    exports.INVALID_SPAN_CONTEXT = require_invalid_span_constants2.INVALID_SPAN_CONTEXT;
    exports.INVALID_TRACEID = require_invalid_span_constants2.INVALID_TRACEID;
    exports.ProxyTracer = require_ProxyTracer2.ProxyTracer;
    exports.ProxyTracerProvider = require_ProxyTracerProvider2.ProxyTracerProvider;
    exports.ROOT_CONTEXT = require_context3.ROOT_CONTEXT;
    exports.SamplingDecision = require_SamplingResult2.SamplingDecision;
    exports.SeverityNumber = require_LogRecord2.SeverityNumber;
    exports.SpanKind = require_span_kind2.SpanKind;
    exports.SpanStatusCode = require_status2.SpanStatusCode;
    exports.TraceFlags = require_trace_flags2.TraceFlags;
    exports.ValueType = require_Metric2.ValueType;
    exports.baggageEntryMetadataFromString = require_utils3.baggageEntryMetadataFromString;
    exports.context = require_context_api2.context;
    exports.createContextKey = require_context3.createContextKey;
    exports.createNoopLogger = require_NoopLogger2.createNoopLogger;
    exports.createNoopMeter = require_NoopMeter2.createNoopMeter;
    exports.createTraceState = require_utils$1.createTraceState;
    exports.default = src_default;
    exports.defaultTextMapGetter = require_TextMapPropagator2.defaultTextMapGetter;
    exports.defaultTextMapSetter = require_TextMapPropagator2.defaultTextMapSetter;
    exports.diag = require_diag_api2.diag;
    exports.isSpanContextValid = require_spancontext_utils2.isSpanContextValid;
    exports.isValidSpanId = require_spancontext_utils2.isValidSpanId;
    exports.isValidTraceId = require_spancontext_utils2.isValidTraceId;
    exports.logs = require_logs_api2.logs;
    exports.metrics = require_metrics_api2.metrics;
    exports.propagation = require_propagation_api2.propagation;
    exports.trace = require_trace_api2.trace;
  }
});

// node_modules/prom-client/lib/metrics/processCpuTotal.js
var require_processCpuTotal = __commonJS({
  "node_modules/prom-client/lib/metrics/processCpuTotal.js"(exports, module) {
    "use strict";
    var OtelApi = require_dist();
    var Counter2 = require_counter();
    var PROCESS_CPU_USER_SECONDS = "process_cpu_user_seconds_total";
    var PROCESS_CPU_SYSTEM_SECONDS = "process_cpu_system_seconds_total";
    var PROCESS_CPU_SECONDS = "process_cpu_seconds_total";
    module.exports = (registry, config = {}) => {
      const registers = registry ? [registry] : void 0;
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const exemplars = config.enableExemplars ? config.enableExemplars : false;
      const labelNames = Object.keys(labels);
      let lastCpuUsage = process.cpuUsage();
      const cpuUserUsageCounter = new Counter2({
        name: namePrefix + PROCESS_CPU_USER_SECONDS,
        help: "Total user CPU time spent in seconds.",
        enableExemplars: exemplars,
        registers,
        labelNames,
        // Use this one metric's `collect` to set all metrics' values.
        collect() {
          const cpuUsage = process.cpuUsage();
          const userUsageMicros = cpuUsage.user - lastCpuUsage.user;
          const systemUsageMicros = cpuUsage.system - lastCpuUsage.system;
          lastCpuUsage = cpuUsage;
          if (this.enableExemplars) {
            let exemplarLabels = {};
            const currentSpan = OtelApi.trace.getSpan(OtelApi.context.active());
            if (currentSpan) {
              exemplarLabels = {
                traceId: currentSpan.spanContext().traceId,
                spanId: currentSpan.spanContext().spanId
              };
            }
            cpuUserUsageCounter.inc({
              labels,
              value: userUsageMicros / 1e6,
              exemplarLabels
            });
            cpuSystemUsageCounter.inc({
              labels,
              value: systemUsageMicros / 1e6,
              exemplarLabels
            });
            cpuUsageCounter.inc({
              labels,
              value: (userUsageMicros + systemUsageMicros) / 1e6,
              exemplarLabels
            });
          } else {
            cpuUserUsageCounter.inc(labels, userUsageMicros / 1e6);
            cpuSystemUsageCounter.inc(labels, systemUsageMicros / 1e6);
            cpuUsageCounter.inc(
              labels,
              (userUsageMicros + systemUsageMicros) / 1e6
            );
          }
        }
      });
      const cpuSystemUsageCounter = new Counter2({
        name: namePrefix + PROCESS_CPU_SYSTEM_SECONDS,
        help: "Total system CPU time spent in seconds.",
        enableExemplars: exemplars,
        registers,
        labelNames
      });
      const cpuUsageCounter = new Counter2({
        name: namePrefix + PROCESS_CPU_SECONDS,
        help: "Total user and system CPU time spent in seconds.",
        enableExemplars: exemplars,
        registers,
        labelNames
      });
    };
    module.exports.metricNames = [
      PROCESS_CPU_USER_SECONDS,
      PROCESS_CPU_SYSTEM_SECONDS,
      PROCESS_CPU_SECONDS
    ];
  }
});

// node_modules/prom-client/lib/metrics/processStartTime.js
var require_processStartTime = __commonJS({
  "node_modules/prom-client/lib/metrics/processStartTime.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var startInSeconds = Math.round(Date.now() / 1e3 - process.uptime());
    var PROCESS_START_TIME = "process_start_time_seconds";
    module.exports = (registry, config = {}) => {
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + PROCESS_START_TIME,
        help: "Start time of the process since unix epoch in seconds.",
        registers: registry ? [registry] : void 0,
        labelNames,
        aggregator: "omit",
        collect() {
          this.set(labels, startInSeconds);
        }
      });
    };
    module.exports.metricNames = [PROCESS_START_TIME];
  }
});

// node_modules/prom-client/lib/metrics/osMemoryHeapLinux.js
var require_osMemoryHeapLinux = __commonJS({
  "node_modules/prom-client/lib/metrics/osMemoryHeapLinux.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var fs = __require("fs");
    var values = ["VmSize", "VmRSS", "VmData"];
    var PROCESS_RESIDENT_MEMORY = "process_resident_memory_bytes";
    var PROCESS_VIRTUAL_MEMORY = "process_virtual_memory_bytes";
    var PROCESS_HEAP = "process_heap_bytes";
    function structureOutput(input) {
      return input.split("\n").reduce((acc, string) => {
        if (!values.some((value2) => string.startsWith(value2))) {
          return acc;
        }
        const split = string.split(":");
        let value = split[1].trim();
        value = value.substr(0, value.length - 3);
        value = Number(value) * 1024;
        acc[split[0]] = value;
        return acc;
      }, {});
    }
    module.exports = (registry, config = {}) => {
      const registers = registry ? [registry] : void 0;
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      const residentMemGauge = new Gauge2({
        name: namePrefix + PROCESS_RESIDENT_MEMORY,
        help: "Resident memory size in bytes.",
        registers,
        labelNames,
        // Use this one metric's `collect` to set all metrics' values.
        collect() {
          try {
            const stat = fs.readFileSync("/proc/self/status", "utf8");
            const structuredOutput = structureOutput(stat);
            residentMemGauge.set(labels, structuredOutput.VmRSS);
            virtualMemGauge.set(labels, structuredOutput.VmSize);
            heapSizeMemGauge.set(labels, structuredOutput.VmData);
          } catch {
          }
        }
      });
      const virtualMemGauge = new Gauge2({
        name: namePrefix + PROCESS_VIRTUAL_MEMORY,
        help: "Virtual memory size in bytes.",
        registers,
        labelNames
      });
      const heapSizeMemGauge = new Gauge2({
        name: namePrefix + PROCESS_HEAP,
        help: "Process heap size in bytes.",
        registers,
        labelNames
      });
    };
    module.exports.metricNames = [
      PROCESS_RESIDENT_MEMORY,
      PROCESS_VIRTUAL_MEMORY,
      PROCESS_HEAP
    ];
  }
});

// node_modules/prom-client/lib/metrics/helpers/safeMemoryUsage.js
var require_safeMemoryUsage = __commonJS({
  "node_modules/prom-client/lib/metrics/helpers/safeMemoryUsage.js"(exports, module) {
    "use strict";
    function safeMemoryUsage() {
      try {
        return process.memoryUsage();
      } catch {
        return;
      }
    }
    module.exports = safeMemoryUsage;
  }
});

// node_modules/prom-client/lib/metrics/osMemoryHeap.js
var require_osMemoryHeap = __commonJS({
  "node_modules/prom-client/lib/metrics/osMemoryHeap.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var linuxVariant = require_osMemoryHeapLinux();
    var safeMemoryUsage = require_safeMemoryUsage();
    var PROCESS_RESIDENT_MEMORY = "process_resident_memory_bytes";
    function notLinuxVariant(registry, config = {}) {
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + PROCESS_RESIDENT_MEMORY,
        help: "Resident memory size in bytes.",
        registers: registry ? [registry] : void 0,
        labelNames,
        collect() {
          const memUsage = safeMemoryUsage();
          if (memUsage) {
            this.set(labels, memUsage.rss);
          }
        }
      });
    }
    module.exports = (registry, config) => process.platform === "linux" ? linuxVariant(registry, config) : notLinuxVariant(registry, config);
    module.exports.metricNames = process.platform === "linux" ? linuxVariant.metricNames : [PROCESS_RESIDENT_MEMORY];
  }
});

// node_modules/prom-client/lib/metrics/processOpenFileDescriptors.js
var require_processOpenFileDescriptors = __commonJS({
  "node_modules/prom-client/lib/metrics/processOpenFileDescriptors.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var fs = __require("fs");
    var process2 = __require("process");
    var PROCESS_OPEN_FDS = "process_open_fds";
    module.exports = (registry, config = {}) => {
      if (process2.platform !== "linux") {
        return;
      }
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + PROCESS_OPEN_FDS,
        help: "Number of open file descriptors.",
        registers: registry ? [registry] : void 0,
        labelNames,
        collect() {
          try {
            const fds = fs.readdirSync("/proc/self/fd");
            this.set(labels, fds.length - 1);
          } catch {
          }
        }
      });
    };
    module.exports.metricNames = [PROCESS_OPEN_FDS];
  }
});

// node_modules/prom-client/lib/metrics/processMaxFileDescriptors.js
var require_processMaxFileDescriptors = __commonJS({
  "node_modules/prom-client/lib/metrics/processMaxFileDescriptors.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var fs = __require("fs");
    var PROCESS_MAX_FDS = "process_max_fds";
    var maxFds;
    module.exports = (registry, config = {}) => {
      if (maxFds === void 0) {
        try {
          const limits = fs.readFileSync("/proc/self/limits", "utf8");
          const lines = limits.split("\n");
          for (const line of lines) {
            if (line.startsWith("Max open files")) {
              const parts = line.split(/  +/);
              maxFds = Number(parts[1]);
              break;
            }
          }
        } catch {
          return;
        }
      }
      if (maxFds === void 0) return;
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + PROCESS_MAX_FDS,
        help: "Maximum number of open file descriptors.",
        registers: registry ? [registry] : void 0,
        labelNames,
        collect() {
          if (maxFds !== void 0) this.set(labels, maxFds);
        }
      });
    };
    module.exports.metricNames = [PROCESS_MAX_FDS];
  }
});

// node_modules/prom-client/lib/metrics/eventLoopLag.js
var require_eventLoopLag = __commonJS({
  "node_modules/prom-client/lib/metrics/eventLoopLag.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var perf_hooks;
    try {
      perf_hooks = __require("perf_hooks");
    } catch {
    }
    var NODEJS_EVENTLOOP_LAG = "nodejs_eventloop_lag_seconds";
    var NODEJS_EVENTLOOP_LAG_MIN = "nodejs_eventloop_lag_min_seconds";
    var NODEJS_EVENTLOOP_LAG_MAX = "nodejs_eventloop_lag_max_seconds";
    var NODEJS_EVENTLOOP_LAG_MEAN = "nodejs_eventloop_lag_mean_seconds";
    var NODEJS_EVENTLOOP_LAG_STDDEV = "nodejs_eventloop_lag_stddev_seconds";
    var NODEJS_EVENTLOOP_LAG_P50 = "nodejs_eventloop_lag_p50_seconds";
    var NODEJS_EVENTLOOP_LAG_P90 = "nodejs_eventloop_lag_p90_seconds";
    var NODEJS_EVENTLOOP_LAG_P99 = "nodejs_eventloop_lag_p99_seconds";
    function reportEventloopLag(start, gauge, labels) {
      const delta = process.hrtime(start);
      const nanosec = delta[0] * 1e9 + delta[1];
      const seconds = nanosec / 1e9;
      gauge.set(labels, seconds);
    }
    module.exports = (registry, config = {}) => {
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      const registers = registry ? [registry] : void 0;
      let collect = () => {
        const start = process.hrtime();
        setImmediate(reportEventloopLag, start, lag, labels);
      };
      if (perf_hooks && perf_hooks.monitorEventLoopDelay) {
        try {
          const histogram = perf_hooks.monitorEventLoopDelay({
            resolution: config.eventLoopMonitoringPrecision
          });
          histogram.enable();
          collect = () => {
            const start = process.hrtime();
            setImmediate(reportEventloopLag, start, lag, labels);
            lagMin.set(labels, histogram.min / 1e9);
            lagMax.set(labels, histogram.max / 1e9);
            lagMean.set(labels, histogram.mean / 1e9);
            lagStddev.set(labels, histogram.stddev / 1e9);
            lagP50.set(labels, histogram.percentile(50) / 1e9);
            lagP90.set(labels, histogram.percentile(90) / 1e9);
            lagP99.set(labels, histogram.percentile(99) / 1e9);
            histogram.reset();
          };
        } catch (e) {
          if (e.code === "ERR_NOT_IMPLEMENTED") {
            return;
          }
          throw e;
        }
      }
      const lag = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG,
        help: "Lag of event loop in seconds.",
        registers,
        labelNames,
        aggregator: "average",
        // Use this one metric's `collect` to set all metrics' values.
        collect
      });
      const lagMin = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_MIN,
        help: "The minimum recorded event loop delay.",
        registers,
        labelNames,
        aggregator: "min"
      });
      const lagMax = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_MAX,
        help: "The maximum recorded event loop delay.",
        registers,
        labelNames,
        aggregator: "max"
      });
      const lagMean = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_MEAN,
        help: "The mean of the recorded event loop delays.",
        registers,
        labelNames,
        aggregator: "average"
      });
      const lagStddev = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_STDDEV,
        help: "The standard deviation of the recorded event loop delays.",
        registers,
        labelNames,
        aggregator: "average"
      });
      const lagP50 = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_P50,
        help: "The 50th percentile of the recorded event loop delays.",
        registers,
        labelNames,
        aggregator: "average"
      });
      const lagP90 = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_P90,
        help: "The 90th percentile of the recorded event loop delays.",
        registers,
        labelNames,
        aggregator: "average"
      });
      const lagP99 = new Gauge2({
        name: namePrefix + NODEJS_EVENTLOOP_LAG_P99,
        help: "The 99th percentile of the recorded event loop delays.",
        registers,
        labelNames,
        aggregator: "average"
      });
    };
    module.exports.metricNames = [
      NODEJS_EVENTLOOP_LAG,
      NODEJS_EVENTLOOP_LAG_MIN,
      NODEJS_EVENTLOOP_LAG_MAX,
      NODEJS_EVENTLOOP_LAG_MEAN,
      NODEJS_EVENTLOOP_LAG_STDDEV,
      NODEJS_EVENTLOOP_LAG_P50,
      NODEJS_EVENTLOOP_LAG_P90,
      NODEJS_EVENTLOOP_LAG_P99
    ];
  }
});

// node_modules/prom-client/lib/metrics/helpers/processMetricsHelpers.js
var require_processMetricsHelpers = __commonJS({
  "node_modules/prom-client/lib/metrics/helpers/processMetricsHelpers.js"(exports, module) {
    "use strict";
    function aggregateByObjectName(list) {
      const data = {};
      for (let i = 0; i < list.length; i++) {
        const listElement = list[i];
        if (!listElement || typeof listElement.constructor === "undefined") {
          continue;
        }
        if (Object.hasOwnProperty.call(data, listElement.constructor.name)) {
          data[listElement.constructor.name] += 1;
        } else {
          data[listElement.constructor.name] = 1;
        }
      }
      return data;
    }
    function updateMetrics(gauge, data, labels) {
      gauge.reset();
      for (const key in data) {
        gauge.set(Object.assign({ type: key }, labels || {}), data[key]);
      }
    }
    module.exports = {
      aggregateByObjectName,
      updateMetrics
    };
  }
});

// node_modules/prom-client/lib/metrics/processHandles.js
var require_processHandles = __commonJS({
  "node_modules/prom-client/lib/metrics/processHandles.js"(exports, module) {
    "use strict";
    var { aggregateByObjectName } = require_processMetricsHelpers();
    var { updateMetrics } = require_processMetricsHelpers();
    var Gauge2 = require_gauge();
    var NODEJS_ACTIVE_HANDLES = "nodejs_active_handles";
    var NODEJS_ACTIVE_HANDLES_TOTAL = "nodejs_active_handles_total";
    module.exports = (registry, config = {}) => {
      if (typeof process._getActiveHandles !== "function") {
        return;
      }
      const registers = registry ? [registry] : void 0;
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + NODEJS_ACTIVE_HANDLES,
        help: "Number of active libuv handles grouped by handle type. Every handle type is C++ class name.",
        labelNames: ["type", ...labelNames],
        registers,
        collect() {
          const handles = process._getActiveHandles();
          updateMetrics(this, aggregateByObjectName(handles), labels);
        }
      });
      new Gauge2({
        name: namePrefix + NODEJS_ACTIVE_HANDLES_TOTAL,
        help: "Total number of active handles.",
        registers,
        labelNames,
        collect() {
          const handles = process._getActiveHandles();
          this.set(labels, handles.length);
        }
      });
    };
    module.exports.metricNames = [
      NODEJS_ACTIVE_HANDLES,
      NODEJS_ACTIVE_HANDLES_TOTAL
    ];
  }
});

// node_modules/prom-client/lib/metrics/processRequests.js
var require_processRequests = __commonJS({
  "node_modules/prom-client/lib/metrics/processRequests.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var { aggregateByObjectName } = require_processMetricsHelpers();
    var { updateMetrics } = require_processMetricsHelpers();
    var NODEJS_ACTIVE_REQUESTS = "nodejs_active_requests";
    var NODEJS_ACTIVE_REQUESTS_TOTAL = "nodejs_active_requests_total";
    module.exports = (registry, config = {}) => {
      if (typeof process._getActiveRequests !== "function") {
        return;
      }
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + NODEJS_ACTIVE_REQUESTS,
        help: "Number of active libuv requests grouped by request type. Every request type is C++ class name.",
        labelNames: ["type", ...labelNames],
        registers: registry ? [registry] : void 0,
        collect() {
          const requests = process._getActiveRequests();
          updateMetrics(this, aggregateByObjectName(requests), labels);
        }
      });
      new Gauge2({
        name: namePrefix + NODEJS_ACTIVE_REQUESTS_TOTAL,
        help: "Total number of active requests.",
        registers: registry ? [registry] : void 0,
        labelNames,
        collect() {
          const requests = process._getActiveRequests();
          this.set(labels, requests.length);
        }
      });
    };
    module.exports.metricNames = [
      NODEJS_ACTIVE_REQUESTS,
      NODEJS_ACTIVE_REQUESTS_TOTAL
    ];
  }
});

// node_modules/prom-client/lib/metrics/processResources.js
var require_processResources = __commonJS({
  "node_modules/prom-client/lib/metrics/processResources.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var { updateMetrics } = require_processMetricsHelpers();
    var NODEJS_ACTIVE_RESOURCES = "nodejs_active_resources";
    var NODEJS_ACTIVE_RESOURCES_TOTAL = "nodejs_active_resources_total";
    module.exports = (registry, config = {}) => {
      if (typeof process.getActiveResourcesInfo !== "function") {
        return;
      }
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + NODEJS_ACTIVE_RESOURCES,
        help: "Number of active resources that are currently keeping the event loop alive, grouped by async resource type.",
        labelNames: ["type", ...labelNames],
        registers: registry ? [registry] : void 0,
        collect() {
          const resources = process.getActiveResourcesInfo();
          const data = {};
          for (let i = 0; i < resources.length; i++) {
            const resource = resources[i];
            if (Object.hasOwn(data, resource)) {
              data[resource] += 1;
            } else {
              data[resource] = 1;
            }
          }
          updateMetrics(this, data, labels);
        }
      });
      new Gauge2({
        name: namePrefix + NODEJS_ACTIVE_RESOURCES_TOTAL,
        help: "Total number of active resources.",
        registers: registry ? [registry] : void 0,
        labelNames,
        collect() {
          const resources = process.getActiveResourcesInfo();
          this.set(labels, resources.length);
        }
      });
    };
    module.exports.metricNames = [
      NODEJS_ACTIVE_RESOURCES,
      NODEJS_ACTIVE_RESOURCES_TOTAL
    ];
  }
});

// node_modules/prom-client/lib/metrics/heapSizeAndUsed.js
var require_heapSizeAndUsed = __commonJS({
  "node_modules/prom-client/lib/metrics/heapSizeAndUsed.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var safeMemoryUsage = require_safeMemoryUsage();
    var NODEJS_HEAP_SIZE_TOTAL = "nodejs_heap_size_total_bytes";
    var NODEJS_HEAP_SIZE_USED = "nodejs_heap_size_used_bytes";
    var NODEJS_EXTERNAL_MEMORY = "nodejs_external_memory_bytes";
    module.exports = (registry, config = {}) => {
      if (typeof process.memoryUsage !== "function") {
        return;
      }
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      const registers = registry ? [registry] : void 0;
      const namePrefix = config.prefix ? config.prefix : "";
      const collect = () => {
        const memUsage = safeMemoryUsage();
        if (memUsage) {
          heapSizeTotal.set(labels, memUsage.heapTotal);
          heapSizeUsed.set(labels, memUsage.heapUsed);
          if (memUsage.external !== void 0) {
            externalMemUsed.set(labels, memUsage.external);
          }
        }
      };
      const heapSizeTotal = new Gauge2({
        name: namePrefix + NODEJS_HEAP_SIZE_TOTAL,
        help: "Process heap size from Node.js in bytes.",
        registers,
        labelNames,
        // Use this one metric's `collect` to set all metrics' values.
        collect
      });
      const heapSizeUsed = new Gauge2({
        name: namePrefix + NODEJS_HEAP_SIZE_USED,
        help: "Process heap size used from Node.js in bytes.",
        registers,
        labelNames
      });
      const externalMemUsed = new Gauge2({
        name: namePrefix + NODEJS_EXTERNAL_MEMORY,
        help: "Node.js external memory size in bytes.",
        registers,
        labelNames
      });
    };
    module.exports.metricNames = [
      NODEJS_HEAP_SIZE_TOTAL,
      NODEJS_HEAP_SIZE_USED,
      NODEJS_EXTERNAL_MEMORY
    ];
  }
});

// node_modules/prom-client/lib/metrics/heapSpacesSizeAndUsed.js
var require_heapSpacesSizeAndUsed = __commonJS({
  "node_modules/prom-client/lib/metrics/heapSpacesSizeAndUsed.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var v8 = __require("v8");
    var METRICS = ["total", "used", "available"];
    var NODEJS_HEAP_SIZE = {};
    METRICS.forEach((metricType) => {
      NODEJS_HEAP_SIZE[metricType] = `nodejs_heap_space_size_${metricType}_bytes`;
    });
    module.exports = (registry, config = {}) => {
      try {
        v8.getHeapSpaceStatistics();
      } catch (e) {
        if (e.code === "ERR_NOT_IMPLEMENTED") {
          return;
        }
        throw e;
      }
      const registers = registry ? [registry] : void 0;
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = ["space", ...Object.keys(labels)];
      const gauges = {};
      METRICS.forEach((metricType) => {
        gauges[metricType] = new Gauge2({
          name: namePrefix + NODEJS_HEAP_SIZE[metricType],
          help: `Process heap space size ${metricType} from Node.js in bytes.`,
          labelNames,
          registers
        });
      });
      gauges.total.collect = () => {
        for (const space of v8.getHeapSpaceStatistics()) {
          const spaceName = space.space_name.substr(
            0,
            space.space_name.indexOf("_space")
          );
          gauges.total.set({ space: spaceName, ...labels }, space.space_size);
          gauges.used.set({ space: spaceName, ...labels }, space.space_used_size);
          gauges.available.set(
            { space: spaceName, ...labels },
            space.space_available_size
          );
        }
      };
    };
    module.exports.metricNames = Object.values(NODEJS_HEAP_SIZE);
  }
});

// node_modules/prom-client/lib/metrics/version.js
var require_version2 = __commonJS({
  "node_modules/prom-client/lib/metrics/version.js"(exports, module) {
    "use strict";
    var Gauge2 = require_gauge();
    var version = process.version;
    var versionSegments = version.slice(1).split(".").map(Number);
    var NODE_VERSION_INFO = "nodejs_version_info";
    module.exports = (registry, config = {}) => {
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      new Gauge2({
        name: namePrefix + NODE_VERSION_INFO,
        help: "Node.js version info.",
        labelNames: ["version", "major", "minor", "patch", ...labelNames],
        registers: registry ? [registry] : void 0,
        aggregator: "first",
        collect() {
          this.labels(
            version,
            versionSegments[0],
            versionSegments[1],
            versionSegments[2],
            ...Object.values(labels)
          ).set(1);
        }
      });
    };
    module.exports.metricNames = [NODE_VERSION_INFO];
  }
});

// node_modules/prom-client/lib/metrics/gc.js
var require_gc = __commonJS({
  "node_modules/prom-client/lib/metrics/gc.js"(exports, module) {
    "use strict";
    var Histogram2 = require_histogram();
    var perf_hooks;
    try {
      perf_hooks = __require("perf_hooks");
    } catch {
    }
    var NODEJS_GC_DURATION_SECONDS = "nodejs_gc_duration_seconds";
    var DEFAULT_GC_DURATION_BUCKETS = [1e-3, 0.01, 0.1, 1, 2, 5];
    var kinds = [];
    if (perf_hooks && perf_hooks.constants) {
      kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_MAJOR] = "major";
      kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_MINOR] = "minor";
      kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_INCREMENTAL] = "incremental";
      kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_WEAKCB] = "weakcb";
    }
    module.exports = (registry, config = {}) => {
      if (!perf_hooks) {
        return;
      }
      const namePrefix = config.prefix ? config.prefix : "";
      const labels = config.labels ? config.labels : {};
      const labelNames = Object.keys(labels);
      const buckets = config.gcDurationBuckets ? config.gcDurationBuckets : DEFAULT_GC_DURATION_BUCKETS;
      const gcHistogram = new Histogram2({
        name: namePrefix + NODEJS_GC_DURATION_SECONDS,
        help: "Garbage collection duration by kind, one of major, minor, incremental or weakcb.",
        labelNames: ["kind", ...labelNames],
        enableExemplars: false,
        buckets,
        registers: registry ? [registry] : void 0
      });
      const obs = new perf_hooks.PerformanceObserver((list) => {
        const entry = list.getEntries()[0];
        const kind = entry.detail ? kinds[entry.detail.kind] : kinds[entry.kind];
        gcHistogram.observe(Object.assign({ kind }, labels), entry.duration / 1e3);
      });
      obs.observe({ entryTypes: ["gc"] });
    };
    module.exports.metricNames = [NODEJS_GC_DURATION_SECONDS];
  }
});

// node_modules/prom-client/lib/defaultMetrics.js
var require_defaultMetrics = __commonJS({
  "node_modules/prom-client/lib/defaultMetrics.js"(exports, module) {
    "use strict";
    var { isObject } = require_util();
    var processCpuTotal = require_processCpuTotal();
    var processStartTime = require_processStartTime();
    var osMemoryHeap = require_osMemoryHeap();
    var processOpenFileDescriptors = require_processOpenFileDescriptors();
    var processMaxFileDescriptors = require_processMaxFileDescriptors();
    var eventLoopLag = require_eventLoopLag();
    var processHandles = require_processHandles();
    var processRequests = require_processRequests();
    var processResources = require_processResources();
    var heapSizeAndUsed = require_heapSizeAndUsed();
    var heapSpacesSizeAndUsed = require_heapSpacesSizeAndUsed();
    var version = require_version2();
    var gc = require_gc();
    var metrics = {
      processCpuTotal,
      processStartTime,
      osMemoryHeap,
      processOpenFileDescriptors,
      processMaxFileDescriptors,
      eventLoopLag,
      ...typeof process.getActiveResourcesInfo === "function" ? { processResources } : {},
      processHandles,
      processRequests,
      heapSizeAndUsed,
      heapSpacesSizeAndUsed,
      version,
      gc
    };
    var metricsList = Object.keys(metrics);
    module.exports = function collectDefaultMetrics2(config) {
      if (config !== null && config !== void 0 && !isObject(config)) {
        throw new TypeError("config must be null, undefined, or an object");
      }
      config = { eventLoopMonitoringPrecision: 10, ...config };
      for (const metric of Object.values(metrics)) {
        metric(config.register, config);
      }
    };
    module.exports.metricsList = metricsList;
  }
});

// node_modules/prom-client/lib/metricAggregators.js
var require_metricAggregators = __commonJS({
  "node_modules/prom-client/lib/metricAggregators.js"(exports) {
    "use strict";
    var { Grouper, hashObject } = require_util();
    function AggregatorFactory(aggregatorFn) {
      return (metrics) => {
        if (metrics.length === 0) return;
        const result = {
          help: metrics[0].help,
          name: metrics[0].name,
          type: metrics[0].type,
          values: [],
          aggregator: metrics[0].aggregator
        };
        const byLabels = new Grouper();
        metrics.forEach((metric) => {
          metric.values.forEach((value) => {
            const key = hashObject(value.labels);
            byLabels.add(`${value.metricName}_${key}`, value);
          });
        });
        byLabels.forEach((values) => {
          if (values.length === 0) return;
          const valObj = {
            value: aggregatorFn(values),
            labels: values[0].labels
          };
          if (values[0].metricName) {
            valObj.metricName = values[0].metricName;
          }
          result.values.push(valObj);
        });
        return result;
      };
    }
    exports.AggregatorFactory = AggregatorFactory;
    exports.aggregators = {
      /**
       * @return The sum of values.
       */
      sum: AggregatorFactory((v) => v.reduce((p, c) => p + c.value, 0)),
      /**
       * @return The first value.
       */
      first: AggregatorFactory((v) => v[0].value),
      /**
       * @return {undefined} Undefined; omits the metric.
       */
      omit: () => {
      },
      /**
       * @return The arithmetic mean of the values.
       */
      average: AggregatorFactory(
        (v) => v.reduce((p, c) => p + c.value, 0) / v.length
      ),
      /**
       * @return The minimum of the values.
       */
      min: AggregatorFactory(
        (v) => v.reduce((p, c) => Math.min(p, c.value), Infinity)
      ),
      /**
       * @return The maximum of the values.
       */
      max: AggregatorFactory(
        (v) => v.reduce((p, c) => Math.max(p, c.value), -Infinity)
      )
    };
  }
});

// node_modules/prom-client/lib/cluster.js
var require_cluster = __commonJS({
  "node_modules/prom-client/lib/cluster.js"(exports, module) {
    "use strict";
    var Registry2 = require_registry();
    var { Grouper } = require_util();
    var { aggregators } = require_metricAggregators();
    var cluster = () => {
      const data = __require("cluster");
      cluster = () => data;
      return data;
    };
    var GET_METRICS_REQ = "prom-client:getMetricsReq";
    var GET_METRICS_RES = "prom-client:getMetricsRes";
    var registries = [Registry2.globalRegistry];
    var requestCtr = 0;
    var listenersAdded = false;
    var requests = /* @__PURE__ */ new Map();
    var AggregatorRegistry = class extends Registry2 {
      constructor(regContentType = Registry2.PROMETHEUS_CONTENT_TYPE) {
        super(regContentType);
        addListeners();
      }
      /**
       * Gets aggregated metrics for all workers. The optional callback and
       * returned Promise resolve with the same value; either may be used.
       * @return {Promise<string>} Promise that resolves with the aggregated
       *   metrics.
       */
      clusterMetrics() {
        const requestId = requestCtr++;
        return new Promise((resolve, reject) => {
          let settled = false;
          function done(err, result) {
            if (settled) return;
            settled = true;
            if (err) reject(err);
            else resolve(result);
          }
          const request = {
            responses: [],
            pending: 0,
            done,
            errorTimeout: setTimeout(() => {
              const err = new Error("Operation timed out.");
              request.done(err);
            }, 5e3)
          };
          requests.set(requestId, request);
          const message = {
            type: GET_METRICS_REQ,
            requestId
          };
          for (const id in cluster().workers) {
            if (cluster().workers[id].isConnected()) {
              cluster().workers[id].send(message);
              request.pending++;
            }
          }
          if (request.pending === 0) {
            clearTimeout(request.errorTimeout);
            process.nextTick(() => done(null, ""));
          }
        });
      }
      get contentType() {
        return super.contentType;
      }
      /**
       * Creates a new Registry instance from an array of metrics that were
       * created by `registry.getMetricsAsJSON()`. Metrics are aggregated using
       * the method specified by their `aggregator` property, or by summation if
       * `aggregator` is undefined.
       * @param {Array} metricsArr Array of metrics, each of which created by
       *   `registry.getMetricsAsJSON()`.
       * @param {string} registryType content type of the new registry. Defaults
       * to PROMETHEUS_CONTENT_TYPE.
       * @return {Registry} aggregated registry.
       */
      static aggregate(metricsArr, registryType = Registry2.PROMETHEUS_CONTENT_TYPE) {
        const aggregatedRegistry = new Registry2();
        const metricsByName = new Grouper();
        aggregatedRegistry.setContentType(registryType);
        metricsArr.forEach((metrics) => {
          metrics.forEach((metric) => {
            metricsByName.add(metric.name, metric);
          });
        });
        metricsByName.forEach((metrics) => {
          const aggregatorName = metrics[0].aggregator;
          const aggregatorFn = aggregators[aggregatorName];
          if (typeof aggregatorFn !== "function") {
            throw new Error(`'${aggregatorName}' is not a defined aggregator.`);
          }
          const aggregatedMetric = aggregatorFn(metrics);
          if (aggregatedMetric) {
            const aggregatedMetricWrapper = Object.assign(
              {
                get: () => aggregatedMetric
              },
              aggregatedMetric
            );
            aggregatedRegistry.registerMetric(aggregatedMetricWrapper);
          }
        });
        return aggregatedRegistry;
      }
      /**
       * Sets the registry or registries to be aggregated. Call from workers to
       * use a registry/registries other than the default global registry.
       * @param {Array<Registry>|Registry} regs Registry or registries to be
       *   aggregated.
       * @return {void}
       */
      static setRegistries(regs) {
        if (!Array.isArray(regs)) regs = [regs];
        regs.forEach((reg) => {
          if (!(reg instanceof Registry2)) {
            throw new TypeError(`Expected Registry, got ${typeof reg}`);
          }
        });
        registries = regs;
      }
    };
    function addListeners() {
      if (listenersAdded) return;
      listenersAdded = true;
      if (cluster().isMaster) {
        cluster().on("message", (worker, message) => {
          if (message.type === GET_METRICS_RES) {
            const request = requests.get(message.requestId);
            if (message.error) {
              request.done(new Error(message.error));
              return;
            }
            message.metrics.forEach((registry) => request.responses.push(registry));
            request.pending--;
            if (request.pending === 0) {
              requests.delete(message.requestId);
              clearTimeout(request.errorTimeout);
              const registry = AggregatorRegistry.aggregate(request.responses);
              const promString = registry.metrics();
              request.done(null, promString);
            }
          }
        });
      }
      if (cluster().isWorker) {
        process.on("message", (message) => {
          if (message.type === GET_METRICS_REQ) {
            Promise.all(registries.map((r) => r.getMetricsAsJSON())).then((metrics) => {
              process.send({
                type: GET_METRICS_RES,
                requestId: message.requestId,
                metrics
              });
            }).catch((error) => {
              process.send({
                type: GET_METRICS_RES,
                requestId: message.requestId,
                error: error.message
              });
            });
          }
        });
      }
    }
    module.exports = AggregatorRegistry;
  }
});

// node_modules/prom-client/index.js
var require_prom_client = __commonJS({
  "node_modules/prom-client/index.js"(exports) {
    "use strict";
    exports.register = require_registry().globalRegistry;
    exports.Registry = require_registry();
    Object.defineProperty(exports, "contentType", {
      configurable: false,
      enumerable: true,
      get() {
        return exports.register.contentType;
      },
      set(value) {
        exports.register.setContentType(value);
      }
    });
    exports.prometheusContentType = exports.Registry.PROMETHEUS_CONTENT_TYPE;
    exports.openMetricsContentType = exports.Registry.OPENMETRICS_CONTENT_TYPE;
    exports.validateMetricName = require_validation().validateMetricName;
    exports.Counter = require_counter();
    exports.Gauge = require_gauge();
    exports.Histogram = require_histogram();
    exports.Summary = require_summary();
    exports.Pushgateway = require_pushgateway();
    exports.linearBuckets = require_bucketGenerators().linearBuckets;
    exports.exponentialBuckets = require_bucketGenerators().exponentialBuckets;
    exports.collectDefaultMetrics = require_defaultMetrics();
    exports.aggregators = require_metricAggregators().aggregators;
    exports.AggregatorRegistry = require_cluster();
  }
});

// dist/cli/run.js
import { dirname } from "node:path";

// dist/schedule/service.js
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

// dist/purchases/notifications.js
import { createHash } from "node:crypto";
var NOTIFICATION_ACTOR = "webhook+verify";
var MAX_STORED_BODY_CHARS = 16 * 1024;
function parseNotification(body) {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { problem: "the body is not a JSON object" };
  const envelope = body;
  const data = envelope.data;
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { problem: "the body has no `data` object" };
  const fields = data;
  const reference = textOf(fields.reference);
  if (!reference || reference.length > 200)
    return { problem: "`data.reference` is missing or not a reference" };
  const amountText = textOf(fields.amount);
  const dateText = textOf(fields.date);
  const date = dateText ? new Date(dateText) : null;
  return {
    reference,
    status: textOf(envelope.status),
    phone: textOf(fields.phone_number),
    amount: amountText && isMoneyText(amountText) ? parseMoney(amountText).toFixed(2) : null,
    plan: textOf(fields.plan),
    notifiedAt: date && !Number.isNaN(date.getTime()) ? date : null
  };
}
function textOf(value) {
  if (typeof value === "number" && Number.isFinite(value))
    return String(value);
  if (typeof value !== "string")
    return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : capText(trimmed, 500);
}
function bodyHash(raw) {
  return createHash("sha256").update(raw).digest("hex");
}
async function storeNotification(db, delivery) {
  const p = delivery.parsed;
  const [inserted] = await rows(db, sql`insert into provider_notifications (body_sha256, source, reference, status, phone, amount, plan, notified_at, body)
        values (${delivery.sha256}, ${delivery.source}, ${p.reference}, ${p.status}, ${p.phone}, ${p.amount},
          ${p.plan}, ${p.notifiedAt?.toISOString() ?? null}, ${capText(delivery.body, MAX_STORED_BODY_CHARS)})
        on conflict (body_sha256) do nothing returning id`);
  if (inserted)
    return { id: Number(inserted.id), duplicate: false };
  const [existing] = await rows(db, sql`select id from provider_notifications where body_sha256 = ${delivery.sha256}`);
  return { id: Number(existing?.id), duplicate: true };
}
function notificationDeps(parts) {
  const verifier = new Verifier({
    db: parts.db,
    ledger: parts.db,
    reseller: parts.reseller,
    verification: parts.config.verification,
    logger: parts.logger,
    clock: parts.clock,
    actor: NOTIFICATION_ACTOR,
    slots: new Semaphore(2),
    onSettled: () => {
    }
  });
  return {
    db: parts.db,
    reseller: parts.reseller,
    verifier,
    logger: parts.logger,
    matchWindow: parts.config.webhooks.match_window
  };
}
async function processNotification(deps, id) {
  const [claimed] = await rows(deps.db, sql`update provider_notifications set processed_at = now() where id = ${id} and processed_at is null
        returning id, reference, status, phone, amount::text as amount, plan, notified_at`);
  if (!claimed)
    return void 0;
  let result;
  try {
    result = await decide(deps, claimed);
  } catch (error) {
    result = {
      outcome: "unmatched",
      reason: `not processed: ${error.message}`,
      purchaseId: null
    };
  }
  await rows(deps.db, sql`update provider_notifications set outcome = ${result.outcome}, reason = ${capText(result.reason)},
        purchase_id = ${result.purchaseId} where id = ${id}`);
  deps.logger.info({ notification: id, purchase: result.purchaseId ?? void 0 }, `notification ${id}: ${result.outcome}: ${result.reason}`);
  return result;
}
async function retryUnmatched(deps, now = /* @__PURE__ */ new Date()) {
  const since = new Date(now.getTime() - 2 * deps.matchWindow).toISOString();
  const due = await rows(deps.db, sql`update provider_notifications n set processed_at = null
        where n.outcome = 'unmatched' and n.purchase_id is null and n.received_at >= ${since}
          and n.reason like '%no in_doubt purchase could be it'
          and exists (select 1 from purchases p where p.state = 'in_doubt' and p.updated_at > n.processed_at)
        returning n.id`);
  const results = [];
  for (const { id } of due) {
    const result = await processNotification(deps, Number(id));
    if (result)
      results.push(result);
  }
  return results;
}
async function decide(deps, n) {
  const reference = n.reference ?? "";
  const [own] = await rows(deps.db, sql`select id, state, phone, coalesce(charged_amount, amount)::text as amount, submitted_at from purchases
        where reference = ${reference} order by id limit 1`);
  if (own)
    return forOwnPurchase(deps, own, reference);
  return forInDoubt(deps, n, reference);
}
async function forOwnPurchase(deps, own, reference) {
  const purchaseId = Number(own.id);
  if (own.state !== "submitted" && own.state !== "unverified")
    return { outcome: "matched", reason: `purchase ${purchaseId} is already ${own.state}`, purchaseId };
  await deps.verifier.checkNow({
    id: purchaseId,
    reference,
    submittedAt: own.submitted_at ? new Date(own.submitted_at).getTime() : Date.now(),
    attempt: 0,
    unverified: own.state === "unverified",
    expect: { phone: own.phone, amount: own.amount }
  });
  const [after] = await rows(deps.db, sql`select state, note from purchases where id = ${purchaseId}`);
  const state = after?.state ?? own.state;
  if (state === "succeeded" || state === "failed")
    return { outcome: "settled", reason: `purchase ${purchaseId} verified now: ${state}`, purchaseId };
  return {
    outcome: "matched",
    reason: `purchase ${purchaseId} verified now and is still ${state}${after?.note ? ` (${after.note})` : ""}`,
    purchaseId
  };
}
async function forInDoubt(deps, n, reference) {
  const none = (reason, purchaseId2 = null) => ({
    outcome: "unmatched",
    reason,
    purchaseId: purchaseId2
  });
  if (!n.notified_at || !n.phone)
    return none(`no purchase carries reference ${reference}, and the notification has no date or phone to match`);
  const at = new Date(n.notified_at);
  const from = new Date(at.getTime() - deps.matchWindow).toISOString();
  const to = new Date(at.getTime() + deps.matchWindow).toISOString();
  const found = await rows(deps.db, sql`select p.id, p.phone, coalesce(p.charged_amount, p.amount)::text as amount, p.plan_id, p.plan_name, e.posted_at
        from purchases p
        cross join lateral (select max(at) as posted_at from purchase_events
          where purchase_id = p.id and to_state = 'submitting') e
        where p.state = 'in_doubt' and e.posted_at between ${from} and ${to}
        order by p.id limit 1000`);
  const candidates = found.filter((c) => couldBe(n, c));
  if (candidates.length === 0)
    return none(`no purchase carries reference ${reference}, and no in_doubt purchase could be it`);
  if (candidates.length > 1)
    return none(`${candidates.length} in_doubt purchases could be it (${candidates.map((c) => c.id).join(", ")}): a person decides`);
  const candidate = candidates[0];
  const purchaseId = Number(candidate.id);
  let verification;
  try {
    verification = await deps.reseller.verifyTransaction(reference);
  } catch (error) {
    return none(`purchase ${purchaseId} could be it, but verify ${reference} failed: ${error.message}`, purchaseId);
  }
  if (!verification.found)
    return none(`the provider's verify does not know reference ${reference}`, purchaseId);
  const problems = verifyDisagreements({ reference, phone: candidate.phone, amount: candidate.amount ?? "0" }, verification);
  if (problems.length > 0)
    return none(`the verify answer of ${reference} disagrees with purchase ${purchaseId}: ${problems.join("; ")}`, purchaseId);
  const other = await otherPurchaseWithReference(deps.db, reference, purchaseId);
  if (other)
    return none(`reference ${reference} is already on purchase ${other.id}`, purchaseId);
  const status = verification.status;
  if (status !== "success" && status !== "failed" && status !== "reversed")
    return {
      outcome: "matched",
      reason: `purchase ${purchaseId} could be it; verify says ${verification.rawStatus}, not final: nothing changed`,
      purchaseId
    };
  const target = status === "success" ? "succeeded" : "failed";
  const refund = target === "failed" ? verification.transaction.amount?.toFixed(2) ?? null : null;
  const moved = await settleInDoubtByProof(deps.db, purchaseId, target, {
    reference,
    providerStatus: verification.rawStatus,
    message: `the provider reports ${verification.rawStatus}`,
    refund
  }, {
    actor: NOTIFICATION_ACTOR,
    reason: `settled by proof: provider notification ${n.id} named reference ${reference}, and its verify answer (${verification.rawStatus}) names this purchase's phone and amount`,
    response: verification.raw
  });
  if (!moved)
    return none(`purchase ${purchaseId} was no longer in_doubt`, purchaseId);
  return {
    outcome: "settled",
    reason: `purchase ${purchaseId} settled ${target} by verify of ${reference}`,
    purchaseId
  };
}
function couldBe(n, c) {
  if (!n.phone || !sameVisibleDigits(n.phone, c.phone))
    return false;
  if (n.amount !== null && c.amount !== null && parseMoney(n.amount).eq(parseMoney(c.amount)))
    return true;
  const plan = n.plan?.toLowerCase();
  return plan !== void 0 && (plan === c.plan_id?.toLowerCase() || plan === c.plan_name?.toLowerCase());
}

// dist/server/health.js
import { createServer } from "node:http";
async function startHealthServer(options) {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error) => {
      options.logger.warn({ err: error }, `${request.url}: ${error.message}`);
      if (!response.headersSent)
        send(response, 500, "text/plain", `error: ${error.message}
`);
      else
        response.end();
    });
  });
  await listen(server, options.host, options.port);
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${options.port}`;
  options.logger.info(`serving /healthz, /readyz and /metrics on ${url}`);
  return {
    url,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    })
  };
}
async function handle(options, request, response) {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (options.webhook?.owns(path)) {
    await options.webhook.handle(request, response);
    return;
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    send(response, 405, "text/plain", "method not allowed\n");
    return;
  }
  switch (path) {
    case "/healthz":
      send(response, 200, "text/plain", "ok\n");
      return;
    case "/readyz": {
      const report2 = await options.readiness.check();
      send(response, report2.ready ? 200 : 503, "application/json", `${JSON.stringify(report2)}
`);
      return;
    }
    case "/metrics": {
      const metrics = await options.metrics();
      send(response, 200, metrics.contentType, metrics.body);
      return;
    }
    default:
      send(response, 404, "text/plain", "not found: try /healthz, /readyz or /metrics\n");
  }
}
function send(response, status, type, body) {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  response.end(body);
}
function listen(server, host, port) {
  return new Promise((resolve, reject) => {
    const onError = (error) => {
      const where = `${host}:${port}`;
      if (error.code === "EADDRINUSE")
        reject(new TopsyncError("PORT_IN_USE", `port ${port} (server.port) is already in use on ${host}: another topsync run or another program holds ${where}; stop it or set server.port to a free port`));
      else if (error.code === "EACCES")
        reject(new TopsyncError("PORT_DENIED", `not allowed to listen on ${where} (server.port ${port})`));
      else
        reject(new TopsyncError("SERVER_FAILED", `cannot listen on ${where}: ${error.message}`));
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

// dist/server/ledger-stats.js
var NOTE_KINDS = ["price_mismatch", "verify_mismatch"];
async function readLedgerStats(db, now, timeZone) {
  const byState = Object.fromEntries(PURCHASE_STATES.map((s) => [s, 0]));
  const states = await rows(db, sql`select state, count(*) as n from purchases group by state`);
  for (const row of states)
    byState[row.state] = Number(row.n);
  const noted = await rows(db, sql`select split_part(note, ':', 1) as kind, count(*) as n from purchases where note is not null group by 1`);
  const [today] = await rows(db, sql`select committed::text as committed from budget_days where day = ${budgetDay(now, timeZone)}::date`);
  const fires = await rows(db, sql`select job_name, status, count(*) as n from schedule_fires group by job_name, status`);
  const [website] = await rows(db, sql`select
          (select summary -> 'planned' from website_runs
           where finished_at is not null and summary -> 'planned' is not null order by id desc limit 1) as planned,
          (select max(finished_at) from website_runs where status = 'ok') as last_ok`);
  return {
    byState,
    spentToday: today?.committed ?? "0.00",
    noted: Object.fromEntries(NOTE_KINDS.map((kind) => [kind, Number(noted.find((n) => n.kind === kind)?.n ?? 0)])),
    fires: fires.map((f) => ({ job: f.job_name, status: f.status, count: Number(f.n) })),
    lastWebsitePlan: typeof website?.planned === "string" ? JSON.parse(website.planned) : website?.planned ?? void 0,
    lastWebsiteSuccess: website?.last_ok ? new Date(website.last_ok) : void 0
  };
}

// dist/server/metrics.js
var import_prom_client = __toESM(require_prom_client(), 1);
var NAMED_LIKE_COUNTERS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total"
];
var PLAN_ACTIONS = ["create", "update", "delete", "unchanged", "unmanaged", "conflicts"];
var DaemonMetrics = class {
  registry = new import_prom_client.Registry();
  purchases = this.gauge("topsync_purchases", "Purchases in the ledger by state.", [
    "state"
  ]);
  inDoubt = this.gauge("topsync_purchases_in_doubt", "Purchases in_doubt: a person must settle them.");
  unverified = this.gauge("topsync_purchases_unverified", "Purchases bought without a final status yet.");
  noted = this.gauge("topsync_purchases_noted", "Purchases an operator should look at, by note: price_mismatch (charged above the listed price), verify_mismatch (a verify answer that disagrees with the purchase).", ["note"]);
  spendToday = this.gauge("topsync_spend_today_naira", "Money committed today (budget day in the configured timezone).");
  /** Only with a budget.daily_limit. */
  budgetLeft;
  scheduleFires = this.gauge("topsync_schedule_fires", "Fires recorded in schedule_fires by job and status (all replicas).", ["job", "status"]);
  websitePlan = this.gauge("topsync_website_plan", "Plan counts of the latest finished website pass (all replicas).", ["action"]);
  websiteLastSuccess = this.gauge("topsync_website_last_success_timestamp_seconds", "When the last website pass with status ok finished (all replicas).");
  databaseUp = this.gauge("topsync_database_up", "1 when the ledger could be read for this scrape.");
  calls = new import_prom_client.Histogram({
    name: "topsync_http_request_duration_seconds",
    help: "Calls to the reseller and analytics services by endpoint and outcome (ok or the error code).",
    labelNames: ["service", "endpoint", "outcome"],
    buckets: [5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry]
  });
  fires = new import_prom_client.Counter({
    name: "topsync_fires_total",
    help: "Fires seen by this replica: run, failed, skipped (catch-up), overlap, not_elected, coordinator_error, missed.",
    labelNames: ["job", "result"],
    registers: [this.registry]
  });
  websitePasses = new import_prom_client.Counter({
    name: "topsync_website_passes_total",
    help: "Website passes run by this replica, by status.",
    labelNames: ["status"],
    registers: [this.registry]
  });
  websitePassPlan = new import_prom_client.Counter({
    name: "topsync_website_pass_plan_total",
    help: "Plan counts summed over the website passes of this replica.",
    labelNames: ["action"],
    registers: [this.registry]
  });
  notifications = new import_prom_client.Counter({
    name: "topsync_notifications_total",
    help: "Provider notifications seen by this replica's receiver, by outcome: matched, settled, unmatched, rejected.",
    labelNames: ["outcome"],
    registers: [this.registry]
  });
  /** The gauges read from the ledger: absent from /metrics while the ledger cannot be read. */
  ledgerGauges;
  ledgerShown = true;
  constructor(config) {
    (0, import_prom_client.collectDefaultMetrics)({ register: this.registry, prefix: "topsync_" });
    for (const name of NAMED_LIKE_COUNTERS)
      this.registry.removeSingleMetric(`topsync_${name}`);
    const limit = config.budget.daily_limit;
    if (limit !== void 0) {
      this.gauge("topsync_budget_daily_limit_naira", "budget.daily_limit.").set(Number(limit.toFixed(2)));
      this.budgetLeft = this.gauge("topsync_budget_remaining_today_naira", "What today's budget has left.");
    }
    this.ledgerGauges = [
      this.purchases,
      this.inDoubt,
      this.unverified,
      this.noted,
      this.spendToday,
      ...this.budgetLeft ? [this.budgetLeft] : [],
      this.scheduleFires,
      this.websitePlan
    ];
  }
  /** Feeds the latency histograms; give it to both service clients. */
  observer = (call, result, durationMs) => {
    this.calls.observe({ service: call.service, endpoint: call.endpoint, outcome: result }, durationMs / 1e3);
  };
  fire(job, result, count = 1) {
    this.fires.inc({ job, result }, count);
  }
  notification(outcome) {
    this.notifications.inc({ outcome });
  }
  websitePass(status, plan, at) {
    this.websitePasses.inc({ status });
    if (plan)
      for (const action of PLAN_ACTIONS)
        this.websitePassPlan.inc({ action }, plan[action]);
    if (status === "ok" && at)
      this.websiteLastSuccess.set(at.getTime() / 1e3);
  }
  /**
   * Sets the ledger gauges from a fresh read; undefined (database unreadable) takes them out of /metrics, so
   * an alert on `topsync_purchases_in_doubt > 0` sees no value ("unknown"), never a 0 ("all clear").
   */
  setLedger(stats, config) {
    this.databaseUp.set(stats ? 1 : 0);
    for (const gauge of [this.purchases, this.scheduleFires, this.websitePlan, this.noted])
      gauge.reset();
    this.showLedger(stats !== void 0);
    if (!stats)
      return;
    for (const [state, count] of Object.entries(stats.byState))
      this.purchases.set({ state }, count);
    this.inDoubt.set(stats.byState.in_doubt ?? 0);
    this.unverified.set(stats.byState.unverified ?? 0);
    for (const [note, count] of Object.entries(stats.noted))
      this.noted.set({ note }, count);
    this.spendToday.set(Number(stats.spentToday));
    const limit = config.budget.daily_limit;
    if (limit !== void 0)
      this.budgetLeft?.set(Math.max(0, Number(limit.minus(stats.spentToday).toFixed(2))));
    for (const f of stats.fires)
      this.scheduleFires.set({ job: f.job, status: f.status }, f.count);
    if (stats.lastWebsitePlan)
      for (const action of PLAN_ACTIONS)
        this.websitePlan.set({ action }, stats.lastWebsitePlan[action] ?? 0);
    if (stats.lastWebsiteSuccess)
      this.websiteLastSuccess.set(stats.lastWebsiteSuccess.getTime() / 1e3);
  }
  showLedger(show) {
    if (show === this.ledgerShown)
      return;
    this.ledgerShown = show;
    for (const gauge of this.ledgerGauges) {
      const name = gauge.name;
      if (show)
        this.registry.registerMetric(gauge);
      else
        this.registry.removeSingleMetric(name);
    }
  }
  gauge(name, help, labelNames = []) {
    return new import_prom_client.Gauge({ name, help, labelNames, registers: [this.registry] });
  }
};

// dist/server/timeout.js
async function withTimeout(work, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// dist/server/readiness.js
var PROBE_TIMEOUT_MS = 2e3;
var Readiness = class {
  database;
  connectError = "not connected yet";
  stopping = false;
  connected(database) {
    this.database = database;
  }
  connectFailed(message) {
    this.connectError = message;
  }
  shuttingDown() {
    this.stopping = true;
  }
  async check() {
    const shutdown = this.stopping ? "shutting down" : "ok";
    const database = this.database;
    if (!database)
      return report({ database: this.connectError, migrations: "unknown", shutdown });
    try {
      await withTimeout(rows(database.db, sql`select 1`), PROBE_TIMEOUT_MS, "the database did not answer");
    } catch (error) {
      return report({
        database: `unreachable: ${error.message}`,
        migrations: "unknown",
        shutdown
      });
    }
    let migrations = "ok";
    try {
      const pending = await withTimeout(pendingMigrations(database.db), PROBE_TIMEOUT_MS, "the migrations check did not answer");
      if (pending.length > 0)
        migrations = `pending: ${pending.join(", ")}`;
    } catch (error) {
      migrations = `unknown: ${error.message}`;
    }
    return report({ database: "ok", migrations, shutdown });
  }
};
function report(checks) {
  return { ready: Object.values(checks).every((c) => c === "ok"), checks };
}

// dist/server/webhook.js
import { createHmac, timingSafeEqual } from "node:crypto";
import { BlockList, isIP } from "node:net";
var MAX_WEBHOOK_BODY_BYTES = 64 * 1024;
var Refusal = class extends Error {
  status;
  constructor(status, message) {
    super(message);
    this.status = status;
  }
};
function createWebhookReceiver(options) {
  const { config } = options;
  const base = config.path.replace(/\/+$/, "") || "/";
  const allow = allowList(config.allow_from);
  const now = options.now ?? Date.now;
  const owns = (pathname) => config.auth === "token" && config.token_in === "path" ? pathname === base || pathname.startsWith(`${base === "/" ? "" : base}/`) : pathname === base || pathname === `${base}/`;
  async function handle2(request, response) {
    try {
      if (request.method !== "POST")
        throw new Refusal(405, "method not allowed: deliveries are POST");
      const source = normaliseAddress(request.socket.remoteAddress ?? "");
      if (allow && !allowed(allow, source))
        throw new Refusal(403, "source address not allowed");
      const raw = await readBody(request);
      authenticate(config, request, raw, now());
      let body;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        throw new Refusal(400, "the body is not JSON");
      }
      const parsed = parseNotification(body);
      if ("problem" in parsed)
        throw new Refusal(400, parsed.problem);
      const db = options.database();
      if (!db)
        throw new Refusal(503, "not ready: the database is not connected yet");
      const text = options.secrets.reduce((out, secret) => redactSecretForms(out, secret), raw.toString("utf8"));
      const stored = await storeNotification(db, {
        sha256: bodyHash(raw),
        source: source || null,
        body: text,
        parsed
      });
      if (!stored.duplicate)
        response.once("finish", () => options.onStored(stored.id));
      send2(response, 200, { received: true, id: stored.id, duplicate: stored.duplicate });
    } catch (error) {
      if (!(error instanceof Refusal)) {
        options.logger.warn({ err: error }, `webhook delivery not stored: ${error.message}`);
        if (!response.headersSent)
          send2(response, 500, { received: false, error: "not stored; try again" });
        else
          response.end();
        return;
      }
      if (error.status !== 503)
        options.onRejected?.(error.message);
      options.logger.warn(`webhook delivery refused (${error.status}): ${error.message}`);
      response.setHeader("connection", "close");
      send2(response, error.status, { received: false, error: error.message });
    }
  }
  return { owns, handle: handle2 };
}
function send2(response, status, body) {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(`${JSON.stringify(body)}
`);
}
function readBody(request) {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BODY_BYTES)
    return Promise.reject(new Refusal(413, `the body is over ${MAX_WEBHOOK_BODY_BYTES} bytes`));
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_WEBHOOK_BODY_BYTES) {
        request.removeAllListeners("data");
        request.pause();
        reject(new Refusal(413, `the body is over ${MAX_WEBHOOK_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}
function header(request, name) {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
function authenticate(config, request, raw, now) {
  const secret = config.secret ?? "";
  if (secret === "")
    throw new Refusal(401, "no webhook secret configured");
  if (config.auth === "token") {
    const given2 = config.token_in === "path" ? decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname.split("/").pop() ?? "") : header(request, config.token_header) ?? "";
    if (!sameText(given2, secret))
      throw new Refusal(401, "missing or wrong token");
    return;
  }
  const signature = header(request, config.signature_header)?.trim();
  if (!signature)
    throw new Refusal(401, `no ${config.signature_header} header`);
  let signed = raw;
  if (config.timestamp_header) {
    const stamp = header(request, config.timestamp_header)?.trim() ?? "";
    if (!/^\d{1,12}$/.test(stamp))
      throw new Refusal(401, `no valid ${config.timestamp_header} header`);
    if (Math.abs(now - Number(stamp) * 1e3) > config.tolerance)
      throw new Refusal(401, `${config.timestamp_header} is outside the tolerance window`);
    signed = Buffer.concat([Buffer.from(`${stamp}.`), raw]);
  }
  const expected = createHmac(config.algorithm, secret).update(signed).digest();
  const given = decodeSignature(signature.replace(/^sha(256|512)=/i, ""), config.encoding);
  if (!given || given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new Refusal(401, "the signature does not match the body");
}
function decodeSignature(text, encoding) {
  if (encoding === "hex")
    return /^[0-9a-fA-F]+$/.test(text) ? Buffer.from(text, "hex") : void 0;
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, "base64") : void 0;
}
function sameText(a, b) {
  const hash = (text) => createHmac("sha256", "topsync-token").update(text).digest();
  return timingSafeEqual(hash(a), hash(b)) && a === b;
}
function normaliseAddress(address) {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
function allowList(entries) {
  if (entries.length === 0)
    return void 0;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const family = isIP(address ?? "") === 6 ? "ipv6" : "ipv4";
    if (bits !== void 0)
      list.addSubnet(address, Number(bits), family);
    else
      list.addAddress(address, family);
  }
  return list;
}
function allowed(list, address) {
  const family = isIP(address);
  if (family === 0)
    return false;
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}

// dist/schedule/connect.js
var FIRST_DELAY_MS = 1e3;
var MAX_DELAY_MS = 3e4;
var POOL_SIZE = 12;
async function connectWithRetry(options) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openMigrated(options);
    } catch (error) {
      if (!(error instanceof TopsyncError && error.code === "DB_UNREACHABLE"))
        throw error;
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
      options.onFailure(error.message);
      options.logger.error(`${error.message}; retrying in ${formatDuration(delay)} (attempt ${attempt + 1})`);
      await options.clock.sleep(delay, options.signal).catch(() => {
      });
      if (options.signal.aborted)
        return void 0;
    }
  }
}
async function openMigrated(options) {
  const database = await openDatabase({
    url: options.url,
    pgliteDir: options.pgliteDir,
    maxConnections: POOL_SIZE
  });
  try {
    const applied = await migrate(database.db);
    if (applied.length > 0)
      options.logger.info(`applied migrations ${applied.join(", ")} to ${database.location}`);
    return database;
  } catch (error) {
    await database.close().catch(() => {
    });
    throw error;
  }
}

// dist/schedule/catch-up.js
var REPORT_WINDOW_MS = 24 * 36e5;
var MAX_REPORTED = 1e3;
function planCatchUp(input, limit = MAX_REPORTED) {
  const { job, now, firstSeen, lastRecorded } = input;
  const isNew = (t) => lastRecorded === void 0 || t > lastRecorded;
  const beforeFirstSeen = (t) => ({
    fireTime: t,
    reason: `before the job first appeared in config (${firstSeen.toISOString()})`
  });
  const tooOld = (t) => ({
    fireTime: t,
    reason: `missed by more than catch_up (${formatDuration(job.catch_up)})`
  });
  if (job.at) {
    const at = job.at;
    if (at > now || !isNew(at))
      return { skipped: [] };
    if (at < firstSeen)
      return { skipped: [beforeFirstSeen(at)] };
    if (now.getTime() - at.getTime() < job.catch_up)
      return { run: at, skipped: [] };
    return { skipped: [tooOld(at)] };
  }
  if (!job.schedule)
    return { skipped: [] };
  const latest = dueFire(job, input.globalTimeZone, now);
  const plan = { skipped: [] };
  if (latest && isNew(latest)) {
    if (latest < firstSeen)
      plan.skipped.push(beforeFirstSeen(latest));
    else
      plan.run = latest;
  }
  const floor = Math.max(firstSeen.getTime() - 1, lastRecorded?.getTime() ?? Number.NEGATIVE_INFINITY, now.getTime() - Math.max(job.catch_up, REPORT_WINDOW_MS));
  const before = latest ?? new Date(now.getTime() + 1);
  const older = firesBefore(job.schedule, job.timezone ?? input.globalTimeZone, before, new Date(floor), limit - plan.skipped.length);
  const deadline = now.getTime() - job.catch_up;
  for (const t of older) {
    plan.skipped.push(t.getTime() <= deadline ? tooOld(t) : { fireTime: t, reason: `superseded: only the latest missed fire (${before.toISOString()}) runs` });
  }
  return plan;
}

// dist/schedule/fire-ledger.js
var WEBSITES_JOB = "(websites)";
async function claimFire(db, fire, claimedBy) {
  const inserted = await rows(db, sql`insert into schedule_fires (fire_key, job_name, fire_time, status, claimed_by)
        values (${fire.key}, ${fire.job}, ${fire.fireTime.toISOString()}::timestamptz, 'running', ${claimedBy})
        on conflict (fire_key) do nothing returning fire_key`);
  return inserted.length === 1;
}
async function finishFire(db, key, claimedBy, status, reason) {
  const moved = await rows(db, sql`update schedule_fires set status = ${status}, reason = coalesce(${reason ?? null}, reason), finished_at = now()
        where fire_key = ${key} and status = 'running' and claimed_by = ${claimedBy} returning fire_key`);
  return moved.length === 1;
}
async function recordSkippedFires(db, fires, recordedBy) {
  if (fires.length === 0)
    return 0;
  const payload = JSON.stringify(fires.map((f) => ({
    fire_key: f.key,
    job_name: f.job,
    fire_time: f.fireTime.toISOString(),
    reason: f.reason
  })));
  const inserted = await rows(db, sql`insert into schedule_fires (fire_key, job_name, fire_time, status, reason, claimed_by, finished_at)
        select fire_key, job_name, fire_time, 'skipped', reason, ${recordedBy}, now()
        from jsonb_to_recordset(${payload}::jsonb) as v(fire_key text, job_name text, fire_time timestamptz, reason text)
        on conflict (fire_key) do nothing returning fire_key`);
  return inserted.length;
}
async function lastRecordedFire(db, job) {
  const [row] = await rows(db, sql`select max(fire_time) as last from schedule_fires where job_name = ${job}`);
  return row?.last ? new Date(row.last) : void 0;
}
async function runningFires(db) {
  const found = await rows(db, sql`select fire_key, job_name, fire_time, claimed_by from schedule_fires
        where status = 'running' and claimed_by is not null order by fire_time limit 1000`);
  return found.map((r) => ({
    key: r.fire_key,
    job: r.job_name,
    fireTime: new Date(r.fire_time),
    claimedBy: r.claimed_by
  }));
}
async function takeOverFire(db, key, from, to) {
  const moved = await rows(db, sql`update schedule_fires set claimed_by = ${to}, reason = ${`taken over from ${from}, which stopped`}
        where fire_key = ${key} and status = 'running' and claimed_by = ${from} returning fire_key`);
  return moved.length === 1;
}

// dist/schedule/coordinator.js
function jobTaskName(job) {
  return `job:${job}`;
}
var WEBSITES_TASK = "websites";
function fireKeyOf(taskName, fireTime) {
  return `${taskName}:${fireTime.toISOString()}`;
}
function parseFireKey(key) {
  const at = key.length - 25;
  const task = key.slice(0, Math.max(0, at));
  const fireTime = new Date(key.slice(at + 1));
  if (at <= 0 || key[at] !== ":" || Number.isNaN(fireTime.getTime()))
    throw new Error(`unexpected schedule fire key "${key}"`);
  if (task === WEBSITES_TASK)
    return { key, job: WEBSITES_JOB, fireTime };
  if (task.startsWith("job:"))
    return { key, job: task.slice(4), fireTime };
  throw new Error(`unexpected schedule fire key "${key}"`);
}
var FireCoordinator = class {
  db;
  replica;
  constructor(db, replica) {
    this.db = db;
    this.replica = replica;
  }
  /** Elected when this replica inserts the fire; the lease node-cron offers is not needed (a key is final). */
  async shouldRun(key) {
    return claimFire(this.db, parseFireKey(key), this.replica);
  }
  async onComplete(key) {
    await finishFire(this.db, key, this.replica, "done");
  }
  /** Closes a fire this replica claimed outside node-cron as done. */
  async finish(key, reason) {
    await finishFire(this.db, key, this.replica, "done", reason);
  }
  /** Closes a fire as failed before node-cron's onComplete would close it as done. */
  async fail(key, reason) {
    await finishFire(this.db, key, this.replica, "failed", reason);
  }
  /** Claims a fire outside node-cron (start-up catch-up) with the same key a scheduled fire would have. */
  claim(fire) {
    return claimFire(this.db, fire, this.replica);
  }
};

// dist/schedule/job-fire.js
function fireTimeOf(job, slot) {
  return job.at ?? slot;
}
function slotOf(fireTime) {
  return new Date(Math.floor(fireTime.getTime() / 1e3) * 1e3);
}
async function writeFire(ctx, job, fireTime) {
  const result = await fireJob(ctx.database.db, job, fireTime, {
    configDir: ctx.configDir,
    defaultAttempts: ctx.config.reseller.retry.max_attempts,
    actor: ctx.replica
  });
  ctx.logger.info({ job: job.name, fire: fireTime.toISOString(), recipients: result.recipients, inserted: result.inserted }, `job ${job.name} fire ${fireTime.toISOString()}: ${result.recipients} recipients, ${result.inserted} new purchases`);
  return result;
}
async function runJobFire(ctx, runs, job, fireTime, wakeWorker) {
  await writeFire(ctx, job, fireTime);
  if (ctx.signal.aborted)
    return;
  const summary = await runs.run({ jobName: job.name, resumeVerification: false, retryWaitMs: 0 });
  if (summary.claimed > 0)
    ctx.logger.info({ job: job.name, run: summary.runId }, `job ${job.name}: ${summary.claimed} claimed, ${summary.submitted} submitted, ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.rejected} rejected, ${summary.inDoubt} in_doubt`);
  if (summary.retried > 0)
    wakeWorker();
  if (summary.stoppedBy)
    throw new Error(`the run stopped: ${summary.stoppedBy}`);
}

// dist/schedule/catch-up-run.js
async function catchUpJobs(ctx, coordinator, firstSeen) {
  const results = [];
  for (const job of ctx.config.purchases) {
    if (!job.enabled || !job.schedule && !job.at)
      continue;
    const seen = firstSeen.get(job.name) ?? new Date(ctx.clock.now());
    try {
      results.push(await catchUpJob(ctx, coordinator, job, seen));
    } catch (error) {
      ctx.logger.error({ job: job.name, err: error }, `job ${job.name}: catch-up failed: ${error.message}`);
    }
  }
  return results;
}
async function catchUpJob(ctx, coordinator, job, firstSeen) {
  const db = ctx.database.db;
  const now = new Date(ctx.clock.now());
  const plan = planCatchUp({
    job,
    globalTimeZone: ctx.config.timezone,
    now,
    firstSeen,
    lastRecorded: await lastRecordedFire(db, job.name)
  });
  const refOf = (fireTime) => {
    const slot = slotOf(fireTime);
    return { key: fireKeyOf(jobTaskName(job.name), slot), job: job.name, fireTime: slot };
  };
  const skipped = await recordSkippedFires(db, plan.skipped.map((s) => ({ ...refOf(s.fireTime), reason: s.reason })), ctx.replica);
  if (skipped > 0) {
    const newest = plan.skipped[0];
    const oldest = plan.skipped[plan.skipped.length - 1];
    ctx.metrics.fire(job.name, "skipped", skipped);
    ctx.logger.warn({ job: job.name, skipped }, `job ${job.name}: ${skipped} missed fires skipped, never run (${oldest.fireTime.toISOString()} \u2026 ${newest.fireTime.toISOString()}; newest: ${newest.reason})`);
  }
  if (!plan.run)
    return { job: job.name, skipped };
  const ref = refOf(plan.run);
  if (!await coordinator.claim(ref))
    return { job: job.name, skipped };
  try {
    await writeFire(ctx, job, plan.run);
    await coordinator.finish(ref.key, `catch-up: the latest fire missed within catch_up`);
  } catch (error) {
    await coordinator.fail(ref.key, `catch-up failed: ${error.message}`).catch(() => {
    });
    ctx.metrics.fire(job.name, "failed");
    throw error;
  }
  ctx.metrics.fire(job.name, "run");
  ctx.logger.info(`job ${job.name}: caught up the missed fire of ${plan.run.toISOString()}`);
  return { job: job.name, ran: plan.run, skipped };
}

// dist/schedule/waker.js
var Waker = class {
  interrupt;
  woken = false;
  /** Ends the current wait, or the next one if none is waiting. */
  wake() {
    this.woken = true;
    this.interrupt?.();
  }
  /** Waits `ms`, or less when woken or when `signal` aborts. */
  async wait(ms, clock, signal) {
    if (this.woken || signal.aborted) {
      this.woken = false;
      return;
    }
    const cut = new AbortController();
    const stop = () => cut.abort();
    this.interrupt = stop;
    signal.addEventListener("abort", stop, { once: true });
    try {
      await clock.sleep(ms, cut.signal).catch(() => {
      });
    } finally {
      signal.removeEventListener("abort", stop);
      this.interrupt = void 0;
      this.woken = false;
    }
  }
};

// dist/schedule/intake-loop.js
var INTAKE_CHANNEL = "topsync_purchase_requests";
var IntakeLoop = class {
  ctx;
  wakeWorker;
  waker = new Waker();
  constructor(ctx, wakeWorker) {
    this.ctx = ctx;
    this.wakeWorker = wakeWorker;
  }
  /** Runs until the daemon stops; resolves then. */
  async run() {
    const unlisten = await this.listen();
    try {
      while (!this.ctx.signal.aborted) {
        await this.ctx.work.track(this.poll());
        await this.waker.wait(this.ctx.config.intake.poll_interval, this.ctx.clock, this.ctx.signal);
      }
    } finally {
      await unlisten().catch(() => {
      });
    }
  }
  /** Polls now (a NOTIFY arrived). */
  wake() {
    this.waker.wake();
  }
  async poll() {
    const { config, logger } = this.ctx;
    if (config.intake.enabled) {
      try {
        let moved = 0;
        for (; ; ) {
          const batch = await ingestIntake(this.ctx.database.db, config.intake.batch_size, this.ctx.replica);
          moved += batch.moved;
          if (batch.invalid > 0)
            logger.warn(`intake: ${batch.invalid} requests name a plan size that is not a size`);
          if (batch.moved < config.intake.batch_size || this.ctx.signal.aborted)
            break;
        }
        if (moved > 0)
          logger.info({ moved }, `intake: ${moved} requests moved into the ledger`);
      } catch (error) {
        logger.warn(`intake poll failed, trying again later: ${error.message}`);
      }
    }
    this.wakeWorker();
  }
  async listen() {
    if (!this.ctx.config.intake.enabled)
      return async () => {
      };
    try {
      return await this.ctx.database.listen(INTAKE_CHANNEL, () => this.wake());
    } catch (error) {
      this.ctx.logger.warn({ err: error }, `cannot LISTEN on ${INTAKE_CHANNEL}; intake is polled every ${this.ctx.config.intake.poll_interval} ms only`);
      return async () => {
      };
    }
  }
};

// dist/schedule/liveness.js
var ReplicaLiveness = class {
  database;
  replica;
  release;
  constructor(database, replica) {
    this.database = database;
    this.replica = replica;
  }
  async hold() {
    this.release = await this.database.holdRunLock(this.replica);
  }
  /** Takes the lock again when it was lost with its connection. */
  async ensure() {
    if (this.release && await this.database.isRunAlive(this.replica))
      return;
    await this.drop();
    await this.hold();
  }
  async drop() {
    const release = this.release;
    this.release = void 0;
    await release?.().catch(() => {
    });
  }
};

// dist/schedule/purchase-runs.js
var CATALOGUE_TTL_MS = 3e4;
var PurchaseRuns = class {
  ctx;
  catalogue;
  constructor(ctx) {
    this.ctx = ctx;
  }
  /** One executor run, tracked for the graceful stop. */
  run(options) {
    return this.ctx.work.track(this.execute(options));
  }
  async execute(options) {
    const { ctx } = this;
    return executeAndRecord({
      database: ctx.database,
      reseller: ctx.reseller,
      config: ctx.config,
      logger: ctx.logger,
      clock: ctx.clock,
      actor: ctx.replica
    }, {
      jobName: options.jobName,
      signal: ctx.signal,
      catalogue: await this.currentCatalogue(),
      resumeVerification: options.resumeVerification,
      retryWaitMs: options.retryWaitMs
    });
  }
  currentCatalogue() {
    const now = this.ctx.clock.now();
    if (!this.catalogue || now - this.catalogue.at > CATALOGUE_TTL_MS) {
      const value = loadCatalogue(this.ctx.reseller, this.ctx.logger);
      this.catalogue = { value, at: now };
      value.catch(() => {
        if (this.catalogue?.value === value)
          this.catalogue = void 0;
      });
    }
    return this.catalogue.value;
  }
};

// dist/schedule/purchase-worker.js
var MAX_PASSES = 2;
var PurchaseWorker = class {
  ctx;
  runs;
  active = 0;
  pending = false;
  constructor(ctx, runs) {
    this.ctx = ctx;
    this.runs = runs;
  }
  wake() {
    if (this.ctx.signal.aborted)
      return;
    if (this.active >= MAX_PASSES) {
      this.pending = true;
      return;
    }
    this.active++;
    void this.pass().finally(() => {
      this.active--;
      if (this.pending) {
        this.pending = false;
        this.wake();
      }
    });
  }
  async pass() {
    try {
      const summary = await this.runs.run({ resumeVerification: false });
      if (summary.claimed > 0)
        this.ctx.logger.info({ run: summary.runId, claimed: summary.claimed, submitted: summary.submitted }, `purchase pass: ${summary.claimed} claimed, ${summary.submitted} submitted, ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.rejected} rejected, ${summary.inDoubt} in_doubt`);
    } catch (error) {
      this.ctx.logger.error(`purchase pass failed: ${error.message}`);
    }
  }
};

// dist/schedule/sweep.js
function sweepIntervalMs(config) {
  return Math.max(1e3, config.verification.max_interval);
}
var Sweeper = class {
  ctx;
  runs;
  coordinator;
  liveness;
  wakeWorker;
  waker = new Waker();
  constructor(ctx, runs, coordinator, liveness, wakeWorker) {
    this.ctx = ctx;
    this.runs = runs;
    this.coordinator = coordinator;
    this.liveness = liveness;
    this.wakeWorker = wakeWorker;
  }
  async run() {
    while (!this.ctx.signal.aborted) {
      await this.ctx.work.track(this.sweep());
      await this.waker.wait(sweepIntervalMs(this.ctx.config), this.ctx.clock, this.ctx.signal);
    }
  }
  async sweep() {
    const { logger } = this.ctx;
    try {
      await this.liveness.ensure();
      const { swept } = await sweepDeadSubmitting(this.ctx.database, this.ctx.replica);
      if (swept > 0)
        logger.warn(`${swept} purchases were left in submitting by a stopped run and are now in_doubt; settle them with topsync purchases resolve`);
      await this.recoverFires();
      if (this.ctx.signal.aborted)
        return;
      const summary = await this.runs.run({ resumeVerification: true });
      if (summary.claimed > 0 || summary.succeeded + summary.failed + summary.unverified > 0)
        logger.info(`verifier sweep: ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.unverified} unverified; ${summary.claimed} claimed`);
    } catch (error) {
      logger.warn(`sweep failed, trying again later: ${error.message}`);
    }
  }
  /** Fires whose replica died while running them: job fires are written again here, website passes closed. */
  async recoverFires() {
    const { database, replica } = this.ctx;
    const byReplica = /* @__PURE__ */ new Map();
    for (const fire of await runningFires(database.db)) {
      if (fire.claimedBy === replica)
        continue;
      byReplica.set(fire.claimedBy, [...byReplica.get(fire.claimedBy) ?? [], fire]);
    }
    for (const [owner, fires] of byReplica) {
      if (await database.isRunAlive(owner))
        continue;
      for (const fire of fires) {
        if (await takeOverFire(database.db, fire.key, owner, replica))
          await this.finishOrphan(fire, owner);
      }
    }
  }
  async finishOrphan(fire, owner) {
    const { ctx, coordinator } = this;
    const job = ctx.config.purchases.find((j) => j.name === fire.job);
    if (fire.job === WEBSITES_JOB || !job) {
      await coordinator.fail(fire.key, `${owner} stopped while running it`);
      return;
    }
    const fireTime = job.at ?? fire.fireTime;
    try {
      await writeFire(ctx, job, fireTime);
    } catch (error) {
      const reason = `taken over from ${owner}, which stopped; writing its rows failed: ${error.message}`;
      await coordinator.fail(fire.key, reason);
      ctx.metrics.fire(job.name, "failed");
      ctx.logger.error({ job: job.name, err: error }, `job ${job.name}: the fire of ${fire.fireTime.toISOString()} ${reason}`);
      return;
    }
    await coordinator.finish(fire.key, `taken over from ${owner}, which stopped; rows written again`);
    ctx.logger.warn(`job ${job.name}: took over the fire of ${fire.fireTime.toISOString()} from ${owner}, which stopped`);
    this.wakeWorker();
  }
};

// dist/schedule/tasks.js
function createFireTask(ctx, coordinator, spec) {
  const log = ctx.logger.child({ task: spec.name });
  const task = createTask(spec.expression, (context) => ctx.work.track(runFire(ctx, coordinator, spec, context)), {
    name: spec.name,
    timezone: spec.timezone,
    noOverlap: true,
    distributed: true,
    runCoordinator: coordinator,
    logger: cronLogger(log)
  });
  task.on("execution:overlap", (context) => {
    ctx.metrics.fire(spec.label, "overlap");
    log.warn(`${spec.label}: the fire of ${context.date.toISOString()} is skipped: the previous run is still going on this replica`);
  });
  task.on("execution:skipped", (context) => {
    if (context.reason === "not-elected") {
      ctx.metrics.fire(spec.label, "not_elected");
      log.debug(`${spec.label}: the fire of ${context.date.toISOString()} runs on another replica`);
      return;
    }
    ctx.metrics.fire(spec.label, "coordinator_error");
    log.error(`${spec.label}: the fire of ${context.date.toISOString()} is skipped: the database could not say whether another replica runs it`);
  });
  task.on("execution:missed", (context) => {
    ctx.metrics.fire(spec.label, "missed");
    log.warn(`${spec.label}: the fire of ${context.date.toISOString()} was missed (the process was busy or asleep)`);
  });
  return task;
}
async function runFire(ctx, coordinator, spec, context) {
  const key = fireKeyOf(spec.name, context.date);
  try {
    await spec.run(context.date);
    ctx.metrics.fire(spec.label, "run");
  } catch (error) {
    const message = error.message;
    ctx.metrics.fire(spec.label, "failed");
    ctx.logger.error({ task: spec.name, err: error }, `${spec.label}: the fire of ${context.date.toISOString()} failed: ${message}`);
    await coordinator.fail(key, message).catch(() => {
    });
  }
}
function cronLogger(log) {
  return {
    info: (message) => log.debug(message),
    warn: (message) => log.debug(message),
    error: (message, err) => log.error({ err: err ?? (message instanceof Error ? message : void 0) }, String(message)),
    debug: (message) => log.debug(String(message))
  };
}

// dist/schedule/advisory-lock.js
var WEBSITES_LOCK = [7263, 2];
async function withTryLock(database, key, body) {
  if (database.kind === "pglite")
    return { locked: true, value: await body() };
  return database.transaction(async (tx) => {
    const [row] = await tx.all(sql`select pg_try_advisory_xact_lock(${key[0]}::int, ${key[1]}::int) as got`);
    if (!row?.got)
      return { locked: false };
    return { locked: true, value: await body() };
  });
}

// dist/schedule/website-pass.js
async function runWebsitePass(ctx) {
  const { config, logger } = ctx;
  const outcome = await withTryLock(ctx.database, WEBSITES_LOCK, async () => {
    const deps = reconcileDeps(config, ctx.analytics, ctx.database.db, {
      logger,
      clock: ctx.clock,
      signal: ctx.signal
    });
    try {
      return await reconcile(deps, { mode: config.websites.mode });
    } catch (error) {
      ctx.metrics.websitePass("failed");
      throw error;
    }
  });
  if (!outcome.locked) {
    logger.info("website pass skipped: another replica is reconciling");
    return;
  }
  const pass = outcome.value;
  ctx.metrics.websitePass(pass.status, pass.plan.summary, new Date(ctx.clock.now()));
  const s = pass.plan.summary;
  logger.info({ website_run: pass.runId, status: pass.status }, `website pass ${pass.runId} (${pass.mode}): ${pass.status}; plan: ${s.create} create, ${s.update} update, ${s.delete} delete, ${s.unchanged} unchanged, ${s.unmanaged} unmanaged, ${s.conflicts} conflicts${pass.errors.length ? `; ${pass.errors.length} errors` : ""}`);
}

// dist/schedule/daemon.js
var AT_HORIZON_MS = 300 * 864e5;
async function startDaemon(ctx) {
  const liveness = new ReplicaLiveness(ctx.database, ctx.replica);
  await liveness.hold();
  const coordinator = new FireCoordinator(ctx.database.db, ctx.replica);
  const runs = new PurchaseRuns(ctx);
  const worker = new PurchaseWorker(ctx, runs);
  const wakeWorker = () => worker.wake();
  const firstSeen = await registerJobs(ctx.database, ctx.config.purchases, new Date(ctx.clock.now()));
  await catchUpJobs(ctx, coordinator, firstSeen);
  const tasks = [];
  for (const job of ctx.config.purchases) {
    const task = jobTask(ctx, coordinator, runs, job, wakeWorker);
    if (task)
      tasks.push(task);
  }
  const websites = ctx.config.websites.schedule;
  if (websites) {
    tasks.push(createFireTask(ctx, coordinator, {
      name: WEBSITES_TASK,
      label: WEBSITES_JOB,
      expression: websites,
      timezone: ctx.config.timezone,
      run: () => runWebsitePass(ctx)
    }));
  } else {
    ctx.logger.info("websites.schedule is not set: the website loop does not run (use topsync websites apply)");
  }
  for (const task of tasks)
    await task.start();
  const intake = new IntakeLoop(ctx, wakeWorker);
  const sweeper = new Sweeper(ctx, runs, coordinator, liveness, wakeWorker);
  const loops = [intake.run(), sweeper.run()].map((loop) => loop.catch((error) => ctx.logger.error({ err: error }, `a daemon loop stopped: ${String(error)}`)));
  ctx.logger.info(`topsync run ${ctx.replica}: ${tasks.length} schedules, intake ${ctx.config.intake.enabled ? "on" : "off"}, database ${ctx.database.location}`);
  return {
    async stop() {
      for (const task of tasks)
        await task.destroy();
      await Promise.all(loops);
      await ctx.work.idle();
      await liveness.drop();
    }
  };
}
function jobTask(ctx, coordinator, runs, job, wakeWorker) {
  if (!job.enabled)
    return void 0;
  const run = (slot) => runJobFire(ctx, runs, job, fireTimeOf(job, slot), wakeWorker);
  const spec = { name: jobTaskName(job.name), label: job.name, run };
  if (job.schedule) {
    return createFireTask(ctx, coordinator, {
      ...spec,
      expression: job.schedule,
      timezone: job.timezone ?? ctx.config.timezone
    });
  }
  if (!job.at)
    return void 0;
  const at = job.at;
  const ahead = at.getTime() - ctx.clock.now();
  if (ahead <= 0)
    return void 0;
  if (ahead > AT_HORIZON_MS) {
    ctx.logger.info(`job ${job.name}: its at time ${at.toISOString()} is far ahead; a later start schedules it`);
    return void 0;
  }
  const due = slotOf(at).getTime();
  return createFireTask(ctx, coordinator, {
    ...spec,
    expression: atExpression(at),
    timezone: "UTC",
    // The cron form matches every year: only the slot of the `at` time itself is this job's fire.
    run: async (slot) => {
      if (slot.getTime() === due)
        await run(slot);
    }
  });
}

// dist/schedule/work-tracker.js
var WorkTracker = class {
  running = /* @__PURE__ */ new Set();
  get size() {
    return this.running.size;
  }
  /** Follows `work` until it settles; its failure is the caller's to handle (it is not rethrown here). */
  track(work) {
    const followed = work.then(() => {
    }, () => {
    });
    this.running.add(followed);
    void followed.finally(() => this.running.delete(followed));
    return work;
  }
  /** Resolves when nothing is in progress, including work started while waiting. */
  async idle() {
    while (this.running.size > 0)
      await Promise.all(this.running);
  }
};

// dist/schedule/service.js
var SCRAPE_TIMEOUT_MS = 5e3;
var REMATCH_INTERVAL_MS = 3e4;
async function runService(options, stop) {
  const { config, logger } = options;
  const metrics = new DaemonMetrics(config);
  const readiness = new Readiness();
  const clients = {
    reseller: createResellerClient(config.reseller, { logger, observer: metrics.observer }),
    analytics: createAnalyticsClient(config.analytics, { logger, observer: metrics.observer })
  };
  let database;
  const closeAll = async () => {
    await Promise.allSettled([clients.reseller.close(), clients.analytics.close()]);
    await database?.close().catch(() => {
    });
  };
  let notifications;
  const deps = () => {
    if (!notifications && database)
      notifications = notificationDeps({
        db: database.db,
        reseller: clients.reseller,
        config,
        logger,
        clock: options.clock
      });
    return notifications;
  };
  const webhook = config.webhooks.enabled ? receiver(options, metrics, () => database, deps) : void 0;
  let rematching = false;
  const rematch = config.webhooks.enabled ? setInterval(() => {
    const ready = deps();
    if (!ready || rematching)
      return;
    rematching = true;
    retryUnmatched(ready).then((results) => {
      for (const result of results)
        metrics.notification(result.outcome);
    }, (error) => logger.warn({ err: error }, `notifications: ${error.message}`)).finally(() => {
      rematching = false;
    });
  }, REMATCH_INTERVAL_MS) : void 0;
  rematch?.unref();
  try {
    const server = await startHealthServer({
      host: config.server.host,
      port: config.server.port,
      readiness,
      logger,
      webhook,
      metrics: async () => {
        metrics.setLedger(await ledgerStats(database, options), config);
        return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
      }
    });
    try {
      database = await connectWithRetry({
        url: config.database.url || options.databaseUrl,
        pgliteDir: config.database.pglite_dir,
        logger,
        clock: options.clock,
        signal: stop,
        onFailure: (message) => readiness.connectFailed(message)
      });
      if (!database)
        return { clean: true };
      readiness.connected(database);
      return await runConnected(options, { ...clients, database, metrics }, readiness, stop);
    } finally {
      await server.close();
    }
  } finally {
    if (rematch)
      clearInterval(rematch);
    await closeAll();
  }
}
async function runConnected(options, parts, readiness, stop) {
  const { config, logger, clock } = options;
  const stopping = new AbortController();
  const ctx = {
    ...parts,
    config,
    configDir: options.configDir,
    logger,
    clock,
    replica: `daemon:${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`,
    signal: stopping.signal,
    work: new WorkTracker()
  };
  const daemon = await startDaemon(ctx);
  if (!stop.aborted)
    await new Promise((resolve) => stop.addEventListener("abort", resolve, { once: true }));
  readiness.shuttingDown();
  const grace = config.server.shutdown_grace;
  logger.info(`stopping: no new claims; calls in flight have ${formatDuration(grace)} to finish`);
  stopping.abort();
  const graceOver = new AbortController();
  const stopped = daemon.stop().then(() => true);
  const timedOut = clock.sleep(grace, graceOver.signal).then(() => false, () => true);
  const clean = await Promise.race([stopped, timedOut]);
  graceOver.abort();
  if (clean)
    logger.info("stopped cleanly: nothing left in submitting by this replica");
  else
    logger.error(`server.shutdown_grace (${formatDuration(grace)}) passed with ${ctx.work.size} tasks still running; their purchases still in submitting become in_doubt at the next sweep of any replica`);
  return { clean };
}
function receiver(options, metrics, database, deps) {
  const { config, logger } = options;
  return createWebhookReceiver({
    config: config.webhooks,
    database: () => database()?.db,
    secrets: [config.webhooks.secret, config.reseller.api_key, config.analytics.api_key].filter((s) => typeof s === "string"),
    logger,
    now: () => options.clock.now(),
    onRejected: () => metrics.notification("rejected"),
    onStored: (id) => {
      const ready = deps();
      if (!ready)
        return;
      processNotification(ready, id).then((result) => {
        if (result)
          metrics.notification(result.outcome);
      }, (error) => logger.warn({ notification: id, err: error }, `notification ${id}: ${error.message}`));
    }
  });
}
async function ledgerStats(database, options) {
  if (!database)
    return void 0;
  try {
    const read = readLedgerStats(database.db, new Date(options.clock.now()), options.config.timezone);
    return await withTimeout(read, SCRAPE_TIMEOUT_MS, "the ledger did not answer");
  } catch (error) {
    options.logger.warn(`metrics: cannot read the ledger: ${error.message}`);
    return void 0;
  }
}

// dist/cli/run.js
var SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 };
async function runCommand(ctx) {
  const stop = new AbortController();
  const onSignal = (signal) => {
    if (stop.signal.aborted) {
      ctx.logger.warn(`${signal} again: exiting now`);
      process.exit(SIGNAL_EXIT[signal] ?? ExitCode.failure);
    }
    ctx.logger.info(`${signal}: stopping (send it again to exit at once)`);
    stop.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  process.on("unhandledRejection", (error) => {
    if (stop.signal.aborted)
      ctx.logger.debug({ err: error }, "after stop");
    else
      ctx.logger.error({ err: error }, `unexpected failure in the background: ${String(error)}`);
  });
  process.on("uncaughtException", (error) => {
    ctx.logger.fatal({ err: error }, `exiting after an unexpected error: ${error.message}${driverHint(error)}`);
    process.exit(ExitCode.failure);
  });
  try {
    const outcome = await runService({
      config: ctx.config,
      configDir: dirname(ctx.configFile),
      databaseUrl: process.env.DATABASE_URL,
      logger: ctx.logger,
      clock: systemClock
    }, stop.signal);
    if (!outcome.clean)
      process.exitCode = ExitCode.failure;
  } finally {
    if (stop.signal.aborted)
      setTimeout(() => process.exit(), 1e3).unref();
  }
}
function driverHint(error) {
  return /reading 'write'/.test(error.message) && /nextWrite/.test(error.stack ?? "") ? " (a known bug of the PostgreSQL driver when the database drops connections: porsager/postgres#1208)" : "";
}
export {
  runCommand
};
