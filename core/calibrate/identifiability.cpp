#include "core/calibrate/identifiability.h"

#include <cmath>

namespace hetplan {
namespace {

using Column = std::vector<double>;

constexpr double kZeroColumn = 1e-9; // as the fit's: below this no residual depends on it
constexpr double kDependent = 1e-9;  // what is left of a unit column already in the basis

double dot(const Column &a, const Column &b)
{
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i)
        sum += a[i] * b[i];
    return sum;
}

// `v` less its projection on the orthonormal `basis`.
Column rejected(Column v, const std::vector<Column> &basis)
{
    for (const Column &q : basis) {
        const double along = dot(v, q);
        for (size_t i = 0; i < v.size(); ++i)
            v[i] -= along * q[i];
    }
    return v;
}

} // namespace

std::vector<Identifiability> identifiability(const std::vector<std::vector<double>> &jacobian)
{
    const size_t p = jacobian.empty() ? 0 : jacobian.front().size();
    std::vector<Column> unit(p, Column(jacobian.size(), 0.0));
    std::vector<Identifiability> verdict(p, Identifiability::Identified);
    for (size_t k = 0; k < p; ++k) {
        for (size_t i = 0; i < jacobian.size(); ++i)
            unit[k][i] = jacobian[i][k];
        const double norm = std::sqrt(dot(unit[k], unit[k]));
        if (norm <= kZeroColumn) {
            verdict[k] = Identifiability::NoDependence;
            continue;
        }
        for (double &x : unit[k])
            x /= norm;
    }
    for (size_t k = 0; k < p; ++k) {
        if (verdict[k] == Identifiability::NoDependence)
            continue;
        // Gram–Schmidt over the others, dropping those already in their span.
        std::vector<Column> basis;
        for (size_t j = 0; j < p; ++j) {
            if (j == k || verdict[j] == Identifiability::NoDependence)
                continue;
            Column q = rejected(unit[j], basis);
            const double left = std::sqrt(dot(q, q));
            if (left <= kDependent)
                continue;
            for (double &x : q)
                x /= left;
            basis.push_back(std::move(q));
        }
        const Column r = rejected(unit[k], basis);
        if (std::sqrt(dot(r, r)) < kMinIdentifiedSine)
            verdict[k] = Identifiability::Collinear;
    }
    return verdict;
}

} // namespace hetplan
