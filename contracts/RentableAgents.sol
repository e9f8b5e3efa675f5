// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DemoAgents} from "./DemoAgents.sol";

/// @title RentableAgents
/// @notice The dev chains' rentable agent collection: DemoAgents (ERC-721 Enumerable, open mint)
///         plus ERC-4907, where the owner (or an approved wallet) lends a token to a user until a
///         time. `userOf` answers the user while the rental runs and the zero address after it
///         ends; a transfer ends the rental, as ERC-4907's reference implementation does.
/// @dev `mint` is open to anyone: deploy this contract on development chains only.
contract RentableAgents is DemoAgents {
    event UpdateUser(uint256 indexed tokenId, address indexed user, uint64 expires);

    struct Rental {
        address user;
        uint64 expires;
    }

    mapping(uint256 tokenId => Rental) private _rentals;

    function supportsInterface(bytes4 interfaceId) public pure virtual override returns (bool) {
        return interfaceId == 0xad092b5c // ERC-4907
            || super.supportsInterface(interfaceId);
    }

    /// @notice Lend `tokenId` to `user` until `expires` (unix seconds; the rental holds while the
    ///         chain's time is at most `expires`). The zero address as user ends a rental.
    function setUser(uint256 tokenId, address user, uint64 expires) external {
        address owner = _requireOwned(tokenId);
        if (msg.sender != owner && !isApprovedForAll(owner, msg.sender) && this.getApproved(tokenId) != msg.sender) {
            revert ERC721InsufficientApproval(msg.sender, tokenId);
        }
        _rentals[tokenId] = Rental(user, expires);
        emit UpdateUser(tokenId, user, expires);
    }

    function userOf(uint256 tokenId) external view returns (address) {
        Rental memory rental = _rentals[tokenId];
        return uint256(rental.expires) >= block.timestamp ? rental.user : address(0);
    }

    function userExpires(uint256 tokenId) external view returns (uint256) {
        return _rentals[tokenId].expires;
    }

    function _afterMove(address from, address to, uint256 tokenId) internal virtual override {
        super._afterMove(from, to, tokenId);
        if (from != to && _rentals[tokenId].user != address(0)) {
            delete _rentals[tokenId];
            emit UpdateUser(tokenId, address(0), 0);
        }
    }
}
