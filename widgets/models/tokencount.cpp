// SPDX-License-Identifier: MIT
#include "widgets/models/tokencount.h"

#include <QCoreApplication>
#include <QSettings>

#include <optional>

namespace cl::gui::tokencount {

namespace {
const QString kKey = QStringLiteral("view/tokenCount");

// Read once: every figure of a refresh asks, and the settings file does not change under us.
std::optional<tokens::Estimator> &cached()
{
    static std::optional<tokens::Estimator> value;
    return value;
}
} // namespace

tokens::Estimator chosen()
{
    if (!cached()) {
        const std::string name = QSettings().value(kKey).toString().toStdString();
        cached() = tokens::parseEstimator(name).value_or(tokens::Estimator::Calibrated);
    }
    return *cached();
}

void choose(tokens::Estimator e)
{
    cached() = e;
    const std::string_view name = tokens::estimatorName(e);
    QSettings().setValue(kKey, QString::fromUtf8(name.data(), qsizetype(name.size())));
}

QString label(tokens::Estimator e)
{
    switch (e) {
    case tokens::Estimator::Calibrated: return QCoreApplication::translate("TokenCount", "&Agent's Count (Calibrated)");
    case tokens::Estimator::Exact: return QCoreApplication::translate("TokenCount", "&Exact Tokenizer Where Available");
    case tokens::Estimator::Seed: return QCoreApplication::translate("TokenCount", "&Plain Estimate (Uncalibrated)");
    }
    return {};
}

QString tooltip(tokens::Estimator e)
{
    switch (e) {
    case tokens::Estimator::Calibrated:
        return QCoreApplication::translate("TokenCount", "Count as the agent does: the session's measured usage where it has one, "
                                                         "otherwise the estimate scaled by a factor learned from that usage");
    case tokens::Estimator::Exact:
        return QCoreApplication::translate("TokenCount", "Count the whole context with the model's tokenizer when its vocabulary is "
                                                         "installed; otherwise the agent's count");
    case tokens::Estimator::Seed:
        return QCoreApplication::translate("TokenCount", "The plain rule-based estimate without calibration, the one the design's "
                                                         "own thresholds are written for (fixed part added)");
    }
    return {};
}

} // namespace cl::gui::tokencount
