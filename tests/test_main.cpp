// main() of every test area's executable (tests/test_registry.h): the first argument names the
// test class to run, by its file's base name; the rest goes to Qt Test.
#include "tests/test_registry.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace hetplan::testmain {

namespace {

std::string &running()
{
    static std::string name;
    return name;
}

std::map<std::string, TestEntry> &registry()
{
    static std::map<std::string, TestEntry> tests;
    return tests;
}

std::string baseName(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

int usage(const char *self, const char *problem)
{
    std::fprintf(stderr, "%s\nusage: %s TEST [Qt Test options]\ntests:", problem, self);
    for (const auto &[name, entry] : registry())
        std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
}

} // namespace

bool registerTest(const char *sourceFile, TestEntry entry)
{
    registry().emplace(baseName(sourceFile), entry);
    return true;
}

const char *runningTest()
{
    return running().c_str();
}

} // namespace hetplan::testmain

int main(int argc, char *argv[])
{
    using namespace hetplan::testmain;
    if (argc < 2)
        return usage(argv[0], "error: no test named");
    const std::string name = argv[1];
    if (name == "--list") {
        for (const auto &[test, entry] : registry())
            std::printf("%s\n", test.c_str());
        return 0;
    }
    const auto found = registry().find(name);
    if (found == registry().end())
        return usage(argv[0], ("error: no test " + name + " in this executable").c_str());
    running() = name;
    // Qt Test sees the options after the test's name, and the test's name as the program: Qt
    // derives the application name from it, so each test keeps settings and standard paths of its
    // own (QStandardPaths' test mode), as when every test was an executable of its own, even while
    // CTest runs several tests of one area at once.
    std::string program = name;
    std::vector<char *> args{program.data()};
    for (int i = 2; i < argc; ++i)
        args.push_back(argv[i]);
    args.push_back(nullptr);
    return found->second(int(args.size()) - 1, args.data());
}
